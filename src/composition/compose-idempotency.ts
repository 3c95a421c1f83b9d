import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { IdempotencyService } from '../idempotency/idempotency-service.ts';
import { startIdempotencySweep } from '../idempotency/sweep-expired-idempotency-entries.ts';

export interface ComposedIdempotency {
  /** Shared by every feature that takes an idempotency key (docs/architecture.md). */
  idempotency: IdempotencyService;
  /** The sweep of expired keys, in bounded batches. */
  feature: GatewayFeature;
}

export function composeIdempotency(
  parts: GatewayParts,
  store: IdempotencyStore,
): ComposedIdempotency {
  let sweep: { stop(): void } | undefined;
  return {
    idempotency: new IdempotencyService({
      store,
      now: parts.now,
      onError: (error) => parts.logError(error, 'renewing idempotency claims failed'),
    }),
    feature: {
      routes: [],
      start() {
        sweep = startIdempotencySweep({
          store,
          intervalMs: 60_000,
          now: parts.now,
          onError: (error) => parts.logError(error, 'deleting expired idempotency keys failed'),
        });
      },
      async stop() {
        sweep?.stop();
      },
    },
  };
}
