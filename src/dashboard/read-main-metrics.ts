import type { Registry } from 'prom-client';

export interface MainMetrics {
  /** HTTP requests answered since start, by status class (`2xx`, `4xx`…). */
  requests: Record<string, number>;
  tokens: { input: number; cached: number; output: number };
  cost_micro: number;
  /** Upstream calls in flight, across every target. */
  in_flight: number;
  uptime_s: number;
  rss_bytes: number;
}

type MetricValues = Array<{ value: number; labels: Record<string, string | number> }>;

/**
 * The figures an operator looks at first, read from this process's metric registry (the series
 * GET /metrics exposes) and from the process itself: no scrape over HTTP. Token types as the
 * token counter names them (src/observability/prometheus-call-observer.ts): cache writes count as
 * input, cache reads as cached.
 */
export async function readMainMetrics(registry: Registry): Promise<MainMetrics> {
  const values = async (name: string): Promise<MetricValues> => {
    const metric = registry.getSingleMetric(name);
    if (metric === undefined) return [];
    return ((await metric.get()) as { values: MetricValues }).values;
  };
  const sum = (series: MetricValues) => series.reduce((total, { value }) => total + value, 0);
  const [requests, tokens, cost, inFlight] = await Promise.all([
    values('switchyard_http_requests_total'),
    values('switchyard_generation_tokens_total'),
    values('switchyard_cost_microcredits_total'),
    values('switchyard_routing_in_flight'),
  ]);
  const byClass: Record<string, number> = {};
  for (const { value, labels } of requests) {
    const statusClass = `${String(labels.status).charAt(0)}xx`;
    byClass[statusClass] = (byClass[statusClass] ?? 0) + value;
  }
  const ofTypes = (...types: string[]) =>
    sum(tokens.filter(({ labels }) => types.includes(String(labels.type))));
  return {
    requests: byClass,
    tokens: {
      input: ofTypes('input_no_cache', 'cache_write_5m', 'cache_write_1h'),
      cached: ofTypes('cache_read'),
      output: ofTypes('output'),
    },
    cost_micro: sum(cost),
    in_flight: sum(inFlight),
    uptime_s: Math.floor(process.uptime()),
    rss_bytes: process.memoryUsage.rss(),
  };
}
