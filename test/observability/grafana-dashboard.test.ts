import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';
import { readMetrics } from './read-metrics.ts';

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const dashboardFile = new URL('../../docs/grafana/switchyard-dashboard.json', import.meta.url);
/** The families the dashboard may query: the gateway's own, the GenAI ones and the process's. */
const metricName = /\b(?:switchyard|gen_ai|process|nodejs)_[a-zA-Z0-9_:]*/g;

/** The metric names of a PromQL query: label matchers and groupings (`by (…)`) left out. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\{[^}]*\}/g, '');
  return bare.match(metricName) ?? [];
}

/** Every query of the shipped dashboard names a series the gateway exposes once it has traffic. */
describe('the Grafana dashboard', () => {
  const bed = useUpstreamTestBed({
    ...modelPerDialect({ anthropic: 'dash-anthropic', chat: 'dash-chat' }),
    processMetrics: true,
  });

  it('is valid JSON whose every queried metric is on /metrics after traffic', async () => {
    const dashboard = JSON.parse(await readFile(dashboardFile, 'utf8')) as {
      title: string;
      panels: Panel[];
    };
    const queries = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => target.expr),
    );
    const queried = new Set(queries.flatMap(metricsOf));
    // The sections the dashboard is for are all there.
    for (const name of [
      'switchyard_http_requests_total',
      'switchyard_http_request_duration_seconds_bucket',
      'switchyard_generation_tokens_total',
      'gen_ai_client_token_usage_sum',
      'gen_ai_server_time_to_first_token_seconds_bucket',
      'switchyard_cost_microcredits_total',
      'switchyard_upstream_attempts_total',
      'switchyard_routing_cooling',
      'switchyard_routing_circuit_open',
      'switchyard_routing_disabled',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(queried, name).toContain(name);

    // A streamed and a failed call, so the success and error series exist.
    for (const model of ['dash-anthropic', 'dash-chat']) {
      bed.fake.enqueue({ output: [{ text: 'charted' }], usage: { input: 9, output: 4 } });
      const response = await bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { authorization: `Bearer ${bed.token}` },
        payload: {
          model,
          max_tokens: 32,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        },
      });
      expect(response.statusCode).toBe(200);
    }
    bed.fake.enqueue({ status: 500 });
    const failed = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${bed.token}` },
      payload: { model: 'dash-chat', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);

    const exposed = new Set((await readMetrics(bed.gateway)).map((sample) => sample.name));
    const missing = [...queried].filter((name) => !exposed.has(name));
    expect(missing).toEqual([]);
  });
});
