import { Counter } from 'prom-client';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { HttpMetrics } from '../http/http-metrics.ts';
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
  metrics: HttpMetrics,
): ComposedIdempotency {
  let sweep: { stop(): void } | undefined;
  // Operation names are the features' own (search, evaluation, images, transcription): bounded.
  const replays = new Counter({
    name: 'switchyard_idempotency_replays_total',
    help: 'Stored answers replayed for a repeated idempotency key, by operation.',
    labelNames: ['operation'],
    registers: [metrics.registry],
  });
  return {
    idempotency: new IdempotencyService({
      store,
      now: parts.now,
      onError: (error) => parts.logError(error, 'renewing idempotency claims failed'),
      onReplay: (operation) => replays.inc({ operation }),
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
