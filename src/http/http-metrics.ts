import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';

import { TalliedCounter, TalliedHistogram } from '../observability/tallied-metrics.ts';

/**
 * The HTTP series, counted on every request in plain numbers (src/observability/
 * tallied-metrics.ts) rather than through prom-client's label objects, which cost about a
 * microsecond an operation.
 */
export interface HttpMetrics {
  registry: Registry;
  /** Label values in order: method, route, status. */
  requests: TalliedCounter;
  /** Label values in order: method, route. */
  duration: TalliedHistogram;
}

export function createHttpMetrics(options: { processMetrics: boolean }): HttpMetrics {
  const registry = new Registry();
  // Under prom-client's own names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds…),
  // the ones stock Node.js dashboards query.
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new TalliedCounter(registry, {
      name: 'switchyard_http_requests_total',
      help: 'HTTP requests by route template and status.',
      labelNames: ['method', 'route', 'status'],
    }),
    duration: new TalliedHistogram(registry, {
      name: 'switchyard_http_request_duration_seconds',
      help: 'Time to the end of the response, streams included.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    }),
  };
}

/** One finished request: an HTTP request, or a turn on the responses WebSocket (method `WS`). */
export function recordRequestMetrics(
  metrics: HttpMetrics,
  request: { method: string; route: string; status: number; seconds: number },
): void {
  const { method, route } = request;
  metrics.requests.inc([method, route, String(request.status)]);
  metrics.duration.observe([method, route], request.seconds);
}

export function installHttpMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    recordRequestMetrics(metrics, {
      method: request.method,
      // The route template, never the raw URL: bounded label cardinality and no secrets.
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
