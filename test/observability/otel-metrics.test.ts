import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attributesOf,
  startOtlpReceiver,
  type OtlpAttributes,
  type OtlpReceiver,
} from '../support/otlp-receiver.ts';
import {
  startUpstreamTestBed,
  streamMessage,
  testModel,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/** What an OTLP/HTTP JSON metrics export holds, as far as these tests read it. */
interface OtlpHistogramPoint {
  attributes: OtlpAttributes;
  count: number | string;
  sum?: number;
  explicitBounds: number[];
}
interface OtlpMetrics {
  resourceMetrics: {
    scopeMetrics: {
      metrics: { name: string; unit?: string; histogram?: { dataPoints: OtlpHistogramPoint[] } }[];
    }[];
  }[];
}

/** The GenAI metrics of finished calls, exported over OTLP next to their traces. */
describe('GenAI metrics over OTLP', () => {
  let receiver: OtlpReceiver;
  let bed: UpstreamTestBed;
  const points = new Map<
    string,
    { attributes: Record<string, unknown>; point: OtlpHistogramPoint }[]
  >();
  const units = new Map<string, string | undefined>();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    bed = await startUpstreamTestBed({
      providers: { anthropic: { kind: 'anthropic' } },
      models: [testModel('claude', 'anthropic')],
      listen: true,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none' },
    });
    bed.fake.enqueue({
      output: [{ text: 'One.' }],
      usage: { input: 40, output: 7, cacheRead: 60 },
    });
    const streamed = await streamMessage(`${bed.origin}`, bed.token, {
      model: 'claude',
      maxTokens: 50,
    });
    await streamed.body.text();
    bed.fake.enqueue({ status: 500 });
    const failed = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': bed.token,
      },
      payload: { model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(streamed.statusCode).toBe(200);
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    // Closing the gateway exports the metrics once more.
    await bed.close();
    for (const body of receiver.bodies<OtlpMetrics>('/v1/metrics'))
      for (const resource of body.resourceMetrics)
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics) {
            units.set(metric.name, metric.unit);
            // Cumulative: the last export holds every call.
            points.set(
              metric.name,
              (metric.histogram?.dataPoints ?? []).map((point) => ({
                attributes: attributesOf(point.attributes),
                point,
              })),
            );
          }
  }, 30_000);

  afterAll(async () => {
    await receiver.close();
  });

  it('records the tokens of a call by type, with its model and provider', () => {
    const usage = points.get('gen_ai.client.token.usage') ?? [];
    expect(units.get('gen_ai.client.token.usage')).toBe('{token}');
    const byType = Object.fromEntries(
      usage.map(({ attributes, point }) => [attributes['gen_ai.token.type'], point]),
    );
    // The cached part of the prompt counts in the input.
    expect(byType.input).toMatchObject({ sum: 100 });
    expect(byType.output).toMatchObject({ sum: 7 });
    expect(Number(byType.input?.count)).toBe(1);
    expect(usage[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude',
      'gen_ai.response.model': 'claude',
    });
    expect(usage[0]?.point.explicitBounds.slice(0, 4)).toEqual([1, 4, 16, 64]);
  });

  it('times every call, naming the failure of one that failed', () => {
    const durations = points.get('gen_ai.client.operation.duration') ?? [];
    expect(units.get('gen_ai.client.operation.duration')).toBe('s');
    expect(durations.map(({ attributes }) => attributes['error.type'] ?? 'none').sort()).toEqual([
      'none',
      'server',
    ]);
    const firstToken = points.get('gen_ai.server.time_to_first_token') ?? [];
    expect(firstToken).toHaveLength(1);
    expect(Number(firstToken[0]?.point.count)).toBe(1);
  });

  it('labels by names only, never an account, token or request id', () => {
    for (const series of points.values())
      for (const { attributes } of series)
        for (const key of Object.keys(attributes)) expect(key).toMatch(/^(gen_ai|error)\./);
    for (const { body } of receiver.exports) {
      expect(body).not.toContain(bed.accountId);
      expect(body).not.toContain(bed.token);
    }
  });
});
