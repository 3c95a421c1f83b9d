import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { brokeAfterHeaders, callErrorType } from './call-error-type.ts';
import type { CallObserver, ObservedAttempt, ObservedCall } from './call-observer.ts';
import { genAiProviderName } from './gen-ai-provider-name.ts';
import { parseTraceparent } from './parse-traceparent.ts';

/**
 * Traces of finished calls (docs/decisions/0148): the spans are built after the fact from the one
 * record a call leaves, with the times it holds, so the request path does no tracing work. A call
 * is one `SERVER` span named after the requested model; each upstream attempt is a `CLIENT` child
 * named after the upstream model. Only names, counts and outcomes are recorded: a call's record
 * holds no prompt, completion or credential, and neither does its trace.
 */
export function createOtelCallObserver(tracer: Tracer): CallObserver {
  return {
    observe(call) {
      try {
        recordCall(tracer, call);
      } catch {
        // A trace is worth less than the request that would see the error.
      }
    },
  };
}

function recordCall(tracer: Tracer, call: ObservedCall): void {
  const parent = remoteParent(call.traceparent);
  const answering = call.attempts.at(-1);
  const errorType = callErrorType(call);
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': call.requestedModel,
    'http.response.status_code': call.status,
    'switchyard.request_id': call.requestId,
    'switchyard.surface': call.surface,
    'switchyard.stream': call.stream,
    'switchyard.outcome': call.outcome,
    'switchyard.account_id': call.accountId,
    'switchyard.api_key_id': call.apiKeyId,
    'switchyard.cost_micro_credits': call.costMicroCredits,
    'switchyard.attempts': call.attempts.length,
  };
  if (answering !== undefined)
    attributes['gen_ai.provider.name'] = genAiProviderName(answering.providerKind);
  if (call.status < 400) attributes['gen_ai.response.model'] = call.model;
  if (errorType !== undefined) attributes['error.type'] = errorType;
  if (call.maxOutputTokens !== undefined)
    attributes['gen_ai.request.max_tokens'] = call.maxOutputTokens;
  if (call.usage !== undefined) {
    const { inputTokens, outputTokens } = call.usage;
    // The semantic conventions count cached prompt tokens in the input, as `total` does.
    attributes['gen_ai.usage.input_tokens'] = inputTokens.total;
    attributes['gen_ai.usage.output_tokens'] = outputTokens.total;
    attributes['gen_ai.usage.cache_read.input_tokens'] = inputTokens.cacheRead;
    attributes['gen_ai.usage.cache_creation.input_tokens'] =
      inputTokens.cacheWrite5m + inputTokens.cacheWrite1h;
    attributes['gen_ai.usage.reasoning.output_tokens'] = outputTokens.reasoning;
  }
  const span = tracer.startSpan(
    `chat ${call.requestedModel}`,
    { kind: SpanKind.SERVER, startTime: call.startedAt, attributes },
    parent,
  );
  if (call.firstByteAt !== undefined) span.addEvent('switchyard.first_byte', call.firstByteAt);
  // Server spans count only the gateway's (and its upstreams') faults as errors; a refusal is an
  // answer.
  if (call.status >= 500 || brokeAfterHeaders(call)) span.setStatus({ code: SpanStatusCode.ERROR });
  const within = trace.setSpan(parent, span);
  for (const attempt of call.attempts) recordAttempt(tracer, attempt, within);
  span.end(call.endedAt);
}

function recordAttempt(tracer: Tracer, attempt: ObservedAttempt, parent: Context): void {
  const upstreamModel = attempt.deployment.startsWith(`${attempt.provider}/`)
    ? attempt.deployment.slice(attempt.provider.length + 1)
    : attempt.deployment;
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': genAiProviderName(attempt.providerKind),
    'gen_ai.request.model': upstreamModel,
    'switchyard.provider': attempt.provider,
    'switchyard.deployment': attempt.deployment,
    // The key's id, a digest: never the key.
    'switchyard.key_id': attempt.keyId,
  };
  if (attempt.status !== undefined) attributes['http.response.status_code'] = attempt.status;
  if (attempt.failure !== undefined) attributes['error.type'] = attempt.failure;
  const span = tracer.startSpan(
    `chat ${upstreamModel}`,
    { kind: SpanKind.CLIENT, startTime: attempt.startedAt, attributes },
    parent,
  );
  if (attempt.failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(attempt.endedAt);
}

/** The client's span as the parent, or none: an invalid header starts a new trace. */
function remoteParent(traceparent: string | undefined): Context {
  const spanContext = traceparent === undefined ? undefined : parseTraceparent(traceparent);
  return spanContext === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContext);
}
