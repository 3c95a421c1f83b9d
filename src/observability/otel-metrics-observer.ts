import type { Attributes, Meter } from '@opentelemetry/api';
import { callErrorType } from './call-error-type.ts';
import type { CallObserver, ObservedCall } from './call-observer.ts';
import { genAiBuckets, genAiProviderName } from './gen-ai-provider-name.ts';

const tokenBuckets = genAiBuckets.tokens;
const durationBuckets = genAiBuckets.durationSeconds;
const firstTokenBuckets = genAiBuckets.firstTokenSeconds;

/**
 * The GenAI client metrics of finished calls, exported over OTLP: token usage, operation duration
 * and time to first token, recorded from the same record as the trace. Attributes are model and
 * provider names only, so the series stay bounded (never an account, token or request id).
 */
export function createOtelMetricsObserver(meter: Meter): CallObserver {
  const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
    unit: '{token}',
    description: 'Tokens used per call, by type (input counts cached prompt tokens)',
    advice: { explicitBucketBoundaries: tokenBuckets },
  });
  const duration = meter.createHistogram('gen_ai.client.operation.duration', {
    unit: 's',
    description: 'From the request reaching the pipeline to the end of its billing',
    advice: { explicitBucketBoundaries: durationBuckets },
  });
  const firstToken = meter.createHistogram('gen_ai.server.time_to_first_token', {
    unit: 's',
    description: 'Until the headers of a streamed answer left for the client',
    advice: { explicitBucketBoundaries: firstTokenBuckets },
  });
  return {
    observe(call) {
      try {
        const attributes = callAttributes(call);
        const errorType = callErrorType(call);
        duration.record(
          seconds(call.endedAt - call.startedAt),
          errorType === undefined ? attributes : { ...attributes, 'error.type': errorType },
        );
        // A whole JSON answer has no first token before its last; only streams are timed.
        if (call.stream && call.firstByteAt !== undefined && errorType === undefined)
          firstToken.record(seconds(call.firstByteAt - call.startedAt), attributes);
        if (call.usage !== undefined) {
          tokenUsage.record(call.usage.inputTokens.total, {
            ...attributes,
            'gen_ai.token.type': 'input',
          });
          tokenUsage.record(call.usage.outputTokens.total, {
            ...attributes,
            'gen_ai.token.type': 'output',
          });
        }
      } catch {
        // A metric is worth less than the request that would see the error.
      }
    },
  };
}

function callAttributes(call: ObservedCall): Attributes {
  const answering = call.attempts.at(-1);
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': call.requestedModel,
  };
  if (answering !== undefined)
    attributes['gen_ai.provider.name'] = genAiProviderName(answering.providerKind);
  if (call.status < 400) attributes['gen_ai.response.model'] = call.model;
  return attributes;
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
