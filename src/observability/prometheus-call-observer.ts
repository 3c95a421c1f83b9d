import type { Registry } from 'prom-client';

import type { CallObserver, ObservedAttempt, ObservedCall } from './call-observer.ts';
import { genAiBuckets, genAiProviderName } from './gen-ai-provider-name.ts';
import { TalliedCounter, TalliedHistogram } from './tallied-metrics.ts';

const tokenBuckets = genAiBuckets.tokens;
const durationBuckets = genAiBuckets.durationSeconds;
const firstTokenBuckets = genAiBuckets.firstTokenSeconds;

type GenAiLabel =
  | 'gen_ai_operation_name'
  | 'gen_ai_provider_name'
  | 'gen_ai_request_model'
  | 'gen_ai_response_model';
const genAiLabels: GenAiLabel[] = [
  'gen_ai_operation_name',
  'gen_ai_provider_name',
  'gen_ai_request_model',
  'gen_ai_response_model',
];

/** An attempt's outcome label: `ok`, its failure class, or `abandoned` (the client left first). */
function attemptOutcome(attempt: ObservedAttempt): string {
  if (attempt.failure !== undefined) return attempt.failure;
  return attempt.status === undefined ? 'abandoned' : 'ok';
}

/**
 * Why a call failed, for `error_type`: the answering attempt's failure class when the upstream
 * refused it, otherwise what the call came to (`cancelled`, `incomplete`, `upstream_error`…).
 * Undefined for a call that succeeded, as the conventions leave the attribute off then.
 */
function errorType(call: ObservedCall, last: ObservedAttempt): string | undefined {
  if (call.outcome === 'ok' && call.status < 400) return undefined;
  return last.failure ?? call.outcome;
}

/**
 * Records every finished generation on GET /metrics (docs/operations.md): the GenAI semantic
 * conventions' client histograms, plus the gateway's own counters of cost, tokens by type and
 * upstream attempts. Labels are catalog model ids and the configuration's provider, deployment
 * and key ids, so the series are bounded by the configuration; never an account, token or
 * request id. A call refused before any upstream call (402, 429) or that no target could take
 * made no GenAI operation: it shows in the HTTP metrics only.
 */
export function createPrometheusCallObserver(registry: Registry): CallObserver {
  const tokenUsage = new TalliedHistogram(registry, {
    name: 'gen_ai_client_token_usage',
    help: 'Tokens used by a GenAI operation, by type (input or output).',
    labelNames: [...genAiLabels, 'gen_ai_token_type'],
    buckets: tokenBuckets,
  });
  const operationDuration = new TalliedHistogram(registry, {
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'A GenAI operation from the request reaching the pipeline to the end of its answer.',
    labelNames: [...genAiLabels, 'error_type'],
    buckets: durationBuckets,
  });
  const timeToFirstToken = new TalliedHistogram(registry, {
    name: 'gen_ai_server_time_to_first_token_seconds',
    help: "A streamed answer's time to its first byte leaving for the client.",
    labelNames: genAiLabels,
    buckets: firstTokenBuckets,
  });
  const cost = new TalliedCounter(registry, {
    name: 'switchyard_cost_microcredits_total',
    help: 'Micro-credits the finished generations are priced at, by the model that answered.',
    labelNames: ['model'],
  });
  const tokens = new TalliedCounter(registry, {
    name: 'switchyard_generation_tokens_total',
    help: 'Tokens of the finished generations, by the model that answered and token type.',
    labelNames: ['model', 'type'],
  });
  const attempts = new TalliedCounter(registry, {
    name: 'switchyard_upstream_attempts_total',
    help: 'Upstream calls by target and how they ended (ok or the failure class).',
    labelNames: ['provider', 'deployment', 'key', 'outcome'],
  });

  return {
    observe(call) {
      for (const attempt of call.attempts) {
        attempts.inc([
          attempt.provider,
          attempt.deployment,
          attempt.keyId,
          attemptOutcome(attempt),
        ]);
      }
      const model = call.model;
      const usage = call.usage;
      if (usage !== undefined) {
        const input = usage.inputTokens;
        tokens.inc([model, 'input_no_cache'], input.noCache);
        tokens.inc([model, 'cache_read'], input.cacheRead);
        tokens.inc([model, 'cache_write_5m'], input.cacheWrite5m);
        tokens.inc([model, 'cache_write_1h'], input.cacheWrite1h);
        tokens.inc([model, 'output'], usage.outputTokens.total);
        tokens.inc([model, 'reasoning'], usage.outputTokens.reasoning);
      }
      if (call.costMicroCredits > 0) cost.inc([model], call.costMicroCredits);

      const last = call.attempts.at(-1);
      if (last === undefined) return;
      // In the order of genAiLabels.
      const provider = genAiProviderName(last.providerKind);
      const error = errorType(call, last);
      operationDuration.observe(
        ['chat', provider, call.requestedModel, model, error],
        Math.max(0, call.endedAt - call.startedAt) / 1000,
      );
      if (usage !== undefined) {
        tokenUsage.observe(
          ['chat', provider, call.requestedModel, model, 'input'],
          usage.inputTokens.total,
        );
        tokenUsage.observe(
          ['chat', provider, call.requestedModel, model, 'output'],
          usage.outputTokens.total,
        );
      }
      if (call.stream && call.firstByteAt !== undefined && error === undefined)
        timeToFirstToken.observe(
          ['chat', provider, call.requestedModel, model],
          Math.max(0, call.firstByteAt - call.startedAt) / 1000,
        );
    },
  };
}
