import type { Registry } from 'prom-client';

import type { CallObserver, ObservedAttempt, ObservedCall } from './call-observer.ts';
import { genAiBuckets, genAiProviderName } from './gen-ai-provider-name.ts';
import {
  TalliedCounter,
  TalliedHistogram,
  type CounterSeries,
  type HistogramSeries,
} from './tallied-metrics.ts';

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

/** The `type` label of the token counter, in the order `countTokens` adds them. */
const tokenTypes = [
  'input_no_cache',
  'cache_read',
  'cache_write_5m',
  'cache_write_1h',
  'output',
  'reasoning',
] as const;

/** The series of one answering model: its cost and its tokens by type, once it had any. */
interface ModelSeries {
  cost: CounterSeries | undefined;
  tokens: CounterSeries[] | undefined;
  /** By the model asked for, then the provider family: the GenAI series of its calls. */
  operations: Map<string, Map<string, OperationSeries>>;
}

/** The GenAI series of calls without an error for one model asked for, answerer and family. */
interface OperationSeries {
  duration: HistogramSeries | undefined;
  inputTokens: HistogramSeries | undefined;
  outputTokens: HistogramSeries | undefined;
  firstToken: HistogramSeries | undefined;
}

/** A target's attempts that answered: the labels they were counted under, and the series. */
interface TargetSeries {
  provider: string;
  deployment: string;
  keyId: string;
  ok: CounterSeries;
}

function entryOf<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let entry = map.get(key);
  if (entry === undefined) {
    entry = create();
    map.set(key, entry);
  }
  return entry;
}

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
 *
 * Every call is observed, so the series of a model, an operation and a target are kept once
 * found and counted into directly: a call costs a few map lookups by strings the catalog and
 * the router already hold, not a label key built per metric. A call that failed is rarer and
 * goes through the metrics' own label lookup.
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

  const models = new Map<string, ModelSeries>();
  const targets = new Map<string, TargetSeries>();
  for (const metric of [tokenUsage, operationDuration, timeToFirstToken, cost, tokens, attempts])
    metric.onReset(() => {
      models.clear();
      targets.clear();
    });

  const countAttempt = (attempt: ObservedAttempt): void => {
    const outcome = attemptOutcome(attempt);
    if (outcome === 'ok') {
      const kept = targets.get(attempt.target);
      // A target id names its provider, deployment and key; the check keeps that an assumption.
      if (
        kept !== undefined &&
        kept.provider === attempt.provider &&
        kept.deployment === attempt.deployment &&
        kept.keyId === attempt.keyId
      ) {
        kept.ok.value += 1;
        return;
      }
      const ok = attempts.seriesOf([attempt.provider, attempt.deployment, attempt.keyId, 'ok']);
      ok.value += 1;
      targets.set(attempt.target, {
        provider: attempt.provider,
        deployment: attempt.deployment,
        keyId: attempt.keyId,
        ok,
      });
      return;
    }
    attempts.inc([attempt.provider, attempt.deployment, attempt.keyId, outcome]);
  };

  return {
    observe(call) {
      for (const attempt of call.attempts) countAttempt(attempt);
      const model = call.model;
      const usage = call.usage;
      const series = entryOf(models, model, () => ({
        cost: undefined,
        tokens: undefined,
        operations: new Map(),
      }));
      if (usage !== undefined) {
        const byType = (series.tokens ??= tokenTypes.map((type) => tokens.seriesOf([model, type])));
        const input = usage.inputTokens;
        (byType[0] as CounterSeries).value += input.noCache;
        (byType[1] as CounterSeries).value += input.cacheRead;
        (byType[2] as CounterSeries).value += input.cacheWrite5m;
        (byType[3] as CounterSeries).value += input.cacheWrite1h;
        (byType[4] as CounterSeries).value += usage.outputTokens.total;
        (byType[5] as CounterSeries).value += usage.outputTokens.reasoning;
      }
      if (call.costMicroCredits > 0)
        (series.cost ??= cost.seriesOf([model])).value += call.costMicroCredits;

      const last = call.attempts.at(-1);
      if (last === undefined) return;
      // In the order of genAiLabels.
      const provider = genAiProviderName(last.providerKind);
      const requested = call.requestedModel;
      const seconds = Math.max(0, call.endedAt - call.startedAt) / 1000;
      const error = errorType(call, last);
      if (error !== undefined) {
        operationDuration.observe(['chat', provider, requested, model, error], seconds);
        if (usage !== undefined) {
          tokenUsage.observe(
            ['chat', provider, requested, model, 'input'],
            usage.inputTokens.total,
          );
          tokenUsage.observe(
            ['chat', provider, requested, model, 'output'],
            usage.outputTokens.total,
          );
        }
        return;
      }
      const operation = entryOf(
        entryOf(series.operations, requested, () => new Map<string, OperationSeries>()),
        provider,
        () => ({
          duration: undefined,
          inputTokens: undefined,
          outputTokens: undefined,
          firstToken: undefined,
        }),
      );
      operationDuration.observeInto(
        (operation.duration ??= operationDuration.seriesOf([
          'chat',
          provider,
          requested,
          model,
          undefined,
        ])),
        seconds,
      );
      if (usage !== undefined) {
        tokenUsage.observeInto(
          (operation.inputTokens ??= tokenUsage.seriesOf([
            'chat',
            provider,
            requested,
            model,
            'input',
          ])),
          usage.inputTokens.total,
        );
        tokenUsage.observeInto(
          (operation.outputTokens ??= tokenUsage.seriesOf([
            'chat',
            provider,
            requested,
            model,
            'output',
          ])),
          usage.outputTokens.total,
        );
      }
      if (call.stream && call.firstByteAt !== undefined)
        timeToFirstToken.observeInto(
          (operation.firstToken ??= timeToFirstToken.seriesOf([
            'chat',
            provider,
            requested,
            model,
          ])),
          Math.max(0, call.firstByteAt - call.startedAt) / 1000,
        );
    },
  };
}
