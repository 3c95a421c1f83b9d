import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeTelemetry } from '../../src/composition/compose-telemetry.ts';
import { readTelemetryConfig } from '../../src/config/read-telemetry-config.ts';
import {
  attributesOf,
  startOtlpReceiver,
  type OtlpAttributes,
  type OtlpReceiver,
} from '../support/otlp-receiver.ts';
import { startUpstreamTestBed, testModel, type UpstreamTestBed } from '../support/test-gateway.ts';

/** What an OTLP/HTTP JSON traces export holds, as far as these tests read it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: OtlpAttributes;
  events?: { name: string }[];
  status?: { code?: number };
}
interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: OtlpAttributes };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** OTLP's span kinds and status codes (the protocol's enums, not the API's). */
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_CODE_ERROR = 2;

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('traces of generations over OTLP', () => {
  const keys = [0, 1].map(() => `sk-otel-${randomBytes(12).toString('hex')}`);
  const collectorSecret = `collector-${randomBytes(8).toString('hex')}`;
  const clientTraceId = randomBytes(16).toString('hex');
  const clientSpanId = randomBytes(8).toString('hex');
  let receiver: OtlpReceiver;
  let bed: UpstreamTestBed;
  const responses: Record<'toolCall' | 'toolResult' | 'failover', LightMyRequestResponse> =
    {} as never;
  const spans: OtlpSpan[] = [];
  let resourceAttributes: Record<string, unknown> = {};

  function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': bed.token,
        ...headers,
      },
      payload: body,
    });
  }

  /** The request span of one answer and its children, by the request id the client was told. */
  function traceOf(response: LightMyRequestResponse) {
    const server = spans.filter(
      (span) =>
        span.kind === SPAN_KIND_SERVER &&
        attributesOf(span.attributes)['switchyard.request_id'] === response.headers['request-id'],
    );
    expect(server).toHaveLength(1);
    const request = server[0] as OtlpSpan;
    const children = spans
      .filter((span) => span.parentSpanId === request.spanId)
      .sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    return { request, attributes: attributesOf(request.attributes), children };
  }

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    bed = await startUpstreamTestBed({
      providers: {
        chat: { kind: 'openai-chat', apiKeyEnv: ['OTEL_TEST_CHAT_0', 'OTEL_TEST_CHAT_1'] },
      },
      models: [testModel('weather', 'chat')],
      config: { routing: { backoffMs: 0 } },
      env: {
        OTEL_TEST_CHAT_0: keys[0] as string,
        OTEL_TEST_CHAT_1: keys[1] as string,
        OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${collectorSecret}`,
        OTEL_SERVICE_NAME: 'switchyard-under-test',
      },
    });

    // A tool round trip from the messages dialect to a chat upstream, the client tracing it.
    bed.fake.enqueue({
      output: [
        { toolCall: { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
      usage: { input: 120, output: 30 },
    });
    const question = { role: 'user', content: 'What is the weather in Paris?' };
    responses.toolCall = await send(
      { model: 'weather', max_tokens: 300, tools: [weatherTool], messages: [question] },
      { traceparent: `00-${clientTraceId}-${clientSpanId}-01` },
    );
    bed.fake.enqueue({
      output: [{ text: 'Sunny and 21 degrees.' }],
      usage: { input: 200, output: 10, cacheRead: 50, reasoning: 4 },
    });
    responses.toolResult = await send({
      model: 'weather',
      max_tokens: 200,
      stream: true,
      tools: [weatherTool],
      messages: [
        question,
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_paris', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call_paris', content: '21C, sunny' }],
        },
      ],
    });

    // The first key fails with a 500; the second answers.
    bed.gateway.router.forget();
    bed.fake.behaveForKey(keys[0] as string, { status: 500 });
    bed.fake.enqueue({ output: [{ text: 'Hello.' }], usage: { input: 9, output: 2 } });
    responses.failover = await send({
      model: 'weather',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });

    // Closing the gateway exports what its batch still holds.
    await bed.close();
    for (const traces of receiver.bodies<OtlpTraces>('/v1/traces')) {
      for (const resourceSpans of traces.resourceSpans) {
        resourceAttributes = attributesOf(resourceSpans.resource.attributes);
        for (const scope of resourceSpans.scopeSpans) spans.push(...scope.spans);
      }
    }
  }, 30_000);

  afterAll(async () => {
    await receiver.close();
  });

  it('answered every request as scripted', () => {
    expect(responses.toolCall.statusCode).toBe(200);
    expect(responses.toolCall.json().content[0]).toMatchObject({ type: 'tool_use' });
    expect(responses.toolResult.statusCode).toBe(200);
    expect(responses.failover.statusCode).toBe(200);
    expect(responses.failover.headers['x-switchyard-deployment']).toContain('attempts=2');
  });

  it('exports one server span per request with its attempts as client children', () => {
    for (const response of Object.values(responses)) {
      const { request, children } = traceOf(response);
      expect(request.name).toBe('chat weather');
      for (const child of children) {
        expect(child.kind).toBe(SPAN_KIND_CLIENT);
        expect(child.name).toBe('chat weather-upstream');
        expect(child.traceId).toBe(request.traceId);
        // Within the request's time.
        expect(BigInt(child.startTimeUnixNano)).toBeGreaterThanOrEqual(
          BigInt(request.startTimeUnixNano),
        );
        expect(BigInt(child.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(request.endTimeUnixNano));
      }
    }
    expect(spans.filter((span) => span.kind === SPAN_KIND_SERVER)).toHaveLength(3);
    expect(traceOf(responses.toolCall).children).toHaveLength(1);
    expect(resourceAttributes['service.name']).toBe('switchyard-under-test');
  });

  it('carries the GenAI attributes, its token counts equal to the usage', () => {
    const toolCall = traceOf(responses.toolCall).attributes;
    expect(toolCall).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'weather',
      'gen_ai.response.model': 'weather',
      'gen_ai.request.max_tokens': 300,
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'http.response.status_code': 200,
      'switchyard.surface': 'messages',
      'switchyard.stream': false,
      'switchyard.outcome': 'ok',
      'switchyard.account_id': bed.accountId,
      'switchyard.attempts': 1,
    });
    expect(toolCall['error.type']).toBeUndefined();
    const usage = responses.toolCall.json().usage as Record<string, number>;
    expect(toolCall['gen_ai.usage.input_tokens']).toBe(usage.input_tokens);
    expect(toolCall['gen_ai.usage.output_tokens']).toBe(usage.output_tokens);
    expect(toolCall['switchyard.cost_micro_credits']).toBeGreaterThan(0);

    // The cached part of the prompt counts in the input, as the conventions ask.
    const { attributes, request } = traceOf(responses.toolResult);
    expect(attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 250,
      'gen_ai.usage.cache_read.input_tokens': 50,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 4,
      'switchyard.stream': true,
    });
    expect(request.events?.map((event) => event.name)).toEqual(['switchyard.first_byte']);
  });

  it('names each attempt by provider, deployment and key id, a failed one by its class', () => {
    const { attributes, children } = traceOf(responses.failover);
    expect(attributes['switchyard.attempts']).toBe(2);
    const [failed, answered] = children.map((child) => attributesOf(child.attributes));
    const keyIds = bed.gateway.catalog.get('weather')?.targets.map((target) => target.key.id);
    expect(failed).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'weather-upstream',
      'switchyard.provider': 'chat',
      'switchyard.deployment': 'chat/weather-upstream',
      'switchyard.key_id': keyIds?.[0],
      'http.response.status_code': 500,
      'error.type': 'server',
    });
    expect(children[0]?.status?.code).toBe(STATUS_CODE_ERROR);
    expect(answered).toMatchObject({
      'switchyard.key_id': keyIds?.[1],
      'http.response.status_code': 200,
    });
    expect(answered?.['error.type']).toBeUndefined();
    expect(children[1]?.status?.code).not.toBe(STATUS_CODE_ERROR);
  });

  it("continues the client's trace when the request carried a traceparent", () => {
    const traced = traceOf(responses.toolCall).request;
    expect(traced.traceId).toBe(clientTraceId);
    expect(traced.parentSpanId).toBe(clientSpanId);
    const untraced = traceOf(responses.toolResult).request;
    expect(untraced.traceId).not.toBe(clientTraceId);
    expect(untraced.parentSpanId ?? '').toBe('');
  });

  it('sends the configured headers and never a credential in the payload', () => {
    expect([...new Set(receiver.exports.map((entry) => entry.path))].sort()).toEqual([
      '/v1/metrics',
      '/v1/traces',
    ]);
    for (const { headers, body } of receiver.exports) {
      expect(headers.authorization).toBe(`Bearer ${collectorSecret}`);
      for (const secret of [...keys, bed.token, collectorSecret]) {
        expect(body).not.toContain(secret);
        expect(body).not.toContain(secret.slice(-16));
      }
      // Nor any of the conversation.
      expect(body).not.toContain('Paris');
      expect(body).not.toContain('Sunny');
    }
  });
});

describe('without an OTLP endpoint', () => {
  it('builds no exporter and no observer', () => {
    const env = { OTEL_SERVICE_NAME: 'switchyard', OTEL_TRACES_SAMPLER: 'always_on' };
    const telemetry = composeTelemetry(readTelemetryConfig(env), {
      logError: () => {},
      logWarn: () => {},
    });
    expect(telemetry).toBeUndefined();
    // So the pipeline is handed no observer at all.
    expect(telemetry?.observer).toBeUndefined();
  });

  it('builds none when the SDK is disabled, even with an endpoint', () => {
    const env = { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(
      composeTelemetry(readTelemetryConfig(env), { logError: () => {}, logWarn: () => {} }),
    ).toBeUndefined();
  });
});
