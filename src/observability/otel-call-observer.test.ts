import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { ObservedCall } from './call-observer.ts';
import { createOtelCallObserver } from './otel-call-observer.ts';

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, observer: createOtelCallObserver(provider.getTracer('test')) };
}

const base: ObservedCall = {
  requestId: 'req_1',
  surface: 'chat',
  stream: true,
  requestedModel: 'big',
  model: 'big',
  accountId: 'acc_1',
  apiKeyId: 'key_1',
  status: 200,
  outcome: 'ok',
  usage: undefined,
  costMicroCredits: 0,
  startedAt: 1_800_000_000_000,
  endedAt: 1_800_000_002_500,
  firstByteAt: undefined,
  attempts: [],
};

describe('createOtelCallObserver', () => {
  it('traces a refusal as one span without attempts, provider or answering model', () => {
    const { exporter, observer } = tracing();
    observer.observe({ ...base, status: 402, outcome: 'refused', endedAt: base.startedAt });
    const [span, ...rest] = exporter.getFinishedSpans();
    expect(rest).toHaveLength(0);
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.attributes).toMatchObject({ 'error.type': 'refused', 'switchyard.attempts': 0 });
    expect(span?.attributes['gen_ai.provider.name']).toBeUndefined();
    expect(span?.attributes['gen_ai.response.model']).toBeUndefined();
    // A refusal is an answer, not the gateway's fault.
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps the times of the record and marks a stream that broke off as an error', () => {
    const { exporter, observer } = tracing();
    observer.observe({
      ...base,
      outcome: 'incomplete',
      firstByteAt: base.startedAt + 300,
      attempts: [
        {
          target: 'p/up-model#k1',
          provider: 'p',
          providerKind: 'anthropic',
          deployment: 'p/up-model',
          keyId: 'k1',
          startedAt: base.startedAt + 10,
          endedAt: base.startedAt + 290,
          status: 200,
        },
      ],
    });
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.kind === SpanKind.SERVER);
    const attempt = spans.find((span) => span.kind === SpanKind.CLIENT);
    expect(request?.startTime).toEqual([1_800_000_000, 0]);
    expect(request?.endTime).toEqual([1_800_000_002, 500_000_000]);
    expect(request?.status.code).toBe(SpanStatusCode.ERROR);
    expect(request?.attributes).toMatchObject({
      'error.type': 'incomplete',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.response.model': 'big',
    });
    expect(request?.events.map((event) => event.time)).toEqual([[1_800_000_000, 300_000_000]]);
    expect(attempt?.name).toBe('chat up-model');
    expect(attempt?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(attempt?.endTime).toEqual([1_800_000_000, 290_000_000]);
  });

  it('starts a trace of its own when the traceparent is not a valid one', () => {
    const { exporter, observer } = tracing();
    observer.observe({ ...base, traceparent: 'not-a-traceparent' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
  });

  it('never throws into the request', () => {
    const { observer } = tracing();
    expect(() =>
      observer.observe({ ...base, attempts: null } as unknown as ObservedCall),
    ).not.toThrow();
  });
});
