import { describe, expect, it } from 'vitest';

import { createHttpMetrics } from '../../src/http/http-metrics.ts';
import { parseMetrics } from './read-metrics.ts';

/** Stock Node.js dashboards query prom-client's own names, so the gateway uses them unprefixed. */
describe('process metrics', () => {
  it('are exposed under their usual names', async () => {
    const metrics = createHttpMetrics({ processMetrics: true });
    const names = new Set(parseMetrics(await metrics.registry.metrics()).map((s) => s.name));
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_version_info',
    ])
      expect(names, name).toContain(name);
    expect([...names].filter((name) => /^switchyard_(process|nodejs)_/.test(name))).toEqual([]);
  });

  it('are left out when not asked for (only one registry per process collects them)', async () => {
    const metrics = createHttpMetrics({ processMetrics: false });
    const names = parseMetrics(await metrics.registry.metrics()).map((s) => s.name);
    expect(names.filter((name) => name.startsWith('process_'))).toEqual([]);
  });
});
