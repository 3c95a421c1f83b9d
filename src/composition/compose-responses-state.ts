import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { GenerationService } from '../generation/generation-service.ts';
import type { HttpMetrics } from '../http/http-metrics.ts';
import { responsesWebSocketRoutes } from '../http/routes/responses-websocket-routes.ts';
import type { ResponseStore } from '../responses-state/response-store.ts';
import { ResponsesState } from '../responses-state/responses-state.ts';
import { startResponseRetentionSweep } from '../responses-state/sweep-expired-responses.ts';
import { responsesSurface } from '../surfaces/responses/responses-surface.ts';
import { responsesRequestSchema } from '../wire/responses/responses-request-schema.ts';

/** Stored responses (docs/decisions/0012): generation saves turns through its hook. */
export function composeResponsesState(parts: GatewayParts, store: ResponseStore): ResponsesState {
  const { config } = parts;
  return new ResponsesState({
    store,
    retentionMs: config.responses.retentionDays * 86_400_000,
    storeByDefault: config.responses.storeByDefault,
    now: parts.now,
    onSaveFailure: (error, responseId) =>
      parts.logError(error, 'storing a finished response failed', { responseId }),
  });
}

/** The responses WebSocket (`GET /v1/responses`) and the sweep of expired stored responses. */
export function composeResponsesSockets(
  parts: GatewayParts,
  options: {
    responsesState: ResponsesState;
    generation: GenerationService;
    store: ResponseStore;
    metrics: HttpMetrics;
  },
): GatewayFeature {
  let sweep: { stop(): void } | undefined;
  return {
    routes: [
      (app) =>
        responsesWebSocketRoutes(app, {
          authenticator: parts.authenticator,
          generation: options.generation,
          responsesState: options.responsesState,
          surface: responsesSurface,
          requestSchema: responsesRequestSchema,
          maxFrameBytes: parts.config.server.bodyLimitBytes,
          metrics: options.metrics,
        }),
    ],
    start() {
      sweep = startResponseRetentionSweep({
        store: options.store,
        intervalMs: 5 * 60_000,
        now: parts.now,
        onError: (error) => parts.logError(error, 'deleting expired responses failed'),
      });
    },
    async stop() {
      sweep?.stop();
    },
  };
}
