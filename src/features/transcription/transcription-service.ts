import type { Principal } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { Config } from '../../config/config-schema.ts';
import type {
  TranscriptionConfig,
  TranscriptionModelConfig,
} from '../../config/transcription-config-schema.ts';
import {
  admitRequest,
  holdPrice,
  releaseAdmission,
  settlePricedCall,
  type PricedCallDependencies,
} from '../../generation/priced-call.ts';
import type { UpstreamPools } from '../../providers/shared/upstream-pool.ts';
import {
  callTranscriptionUpstream,
  type TranscriptionDeployment,
} from './call-transcription-upstream.ts';
import type { WavHeader } from './parse-wav-header.ts';
import type { TranscriptionForm } from './read-transcription-form.ts';
import type { TranscriptionAnswer, TranscriptionUsage } from './transcription-types.ts';

export interface TranscriptionDependencies extends PricedCallDependencies {
  config: TranscriptionConfig;
  providers: Config['providers'];
  pools: UpstreamPools;
  /** The configured key of a provider, read from its environment variable. */
  apiKey(providerId: string): string | undefined;
}

/** A transcription model with its prices in integer micro-credits. */
interface TranscriptionModel {
  id: string;
  deployments: TranscriptionDeployment[];
  perSecond: number;
  /** Per million tokens; both set or neither (check-transcription-config.ts). */
  tokens: { input: number; output: number } | undefined;
}

export interface TranscriptionInput {
  form: TranscriptionForm;
  principal: Principal;
  requestId: string;
  /** Told what the call is charged, for the request's completion log line. */
  onCharged?(fields: { model: string; deployment: string; costMicroCredits: number }): void;
}

/**
 * Audio transcription (docs/transcription.md): the price of the header's
 * duration is held, the model's deployments are tried in order until one answers (the next on
 * 5xx, timeout or connect failure), and the hold is settled on the upstream's reported usage,
 * capped at the hold, or released on a failure, so a failed transcription costs nothing.
 */
export class TranscriptionService {
  readonly #dependencies: TranscriptionDependencies;
  readonly #models: Map<string, TranscriptionModel>;

  constructor(dependencies: TranscriptionDependencies) {
    this.#dependencies = dependencies;
    this.#models = new Map(
      dependencies.config.models.map((model) => [
        model.id,
        toTranscriptionModel(model, dependencies.providers),
      ]),
    );
  }

  /** 400 `unknown_model` or 401 `model_not_allowed` before anything is held or sent. */
  resolve(modelId: string, principal: Principal): TranscriptionModel {
    const model = this.#models.get(modelId);
    if (model === undefined) {
      throw new ApiError(
        'unknown_model',
        `Unknown transcription model "${modelId}"; the transcription models are ${[...this.#models.keys()].join(', ')}.`,
        { details: { param: 'model' } },
      );
    }
    const allowed = principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(model.id))
      throw new ApiError('model_not_allowed', `This token may not use the model "${model.id}".`);
    return model;
  }

  async transcribe(input: TranscriptionInput): Promise<TranscriptionAnswer> {
    const dependencies = this.#dependencies;
    const startedAt = dependencies.now();
    const { principal, form } = input;
    const model = this.resolve(form.parameters.model, principal);
    const lease = await admitRequest(dependencies, principal);
    try {
      const held = priceOfHeader(form.audio.header, model.perSecond);
      const holdId = await holdPrice(dependencies, {
        principal,
        amount: held,
        what: 'this transcription',
      });
      let outcome: { text: string; usage: TranscriptionUsage | undefined; deployment: string };
      try {
        outcome = await this.#ask(model, form);
      } catch (error) {
        if (holdId !== undefined) await dependencies.ledger.releaseHold(holdId);
        throw error;
      }
      const { usage } = outcome;
      const cost = Math.min(held, priceOfUsage(usage, model) ?? held);
      input.onCharged?.({
        model: model.id,
        deployment: outcome.deployment,
        costMicroCredits: cost,
      });
      await settlePricedCall(dependencies, {
        principal,
        holdId,
        cost,
        reason: `transcription ${outcome.deployment}`,
        requestId: input.requestId,
        surface: 'transcription',
        model: model.id,
        deployment: outcome.deployment,
        startedAt,
        ...(usage?.type === 'tokens'
          ? { tokens: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } }
          : {}),
      });
      return { text: outcome.text };
    } finally {
      await releaseAdmission(dependencies, lease);
    }
  }

  async #ask(
    model: TranscriptionModel,
    form: TranscriptionForm,
  ): Promise<{ text: string; usage: TranscriptionUsage | undefined; deployment: string }> {
    const { pools, now } = this.#dependencies;
    let failure: ApiError | undefined;
    for (const deployment of model.deployments) {
      const outcome = await callTranscriptionUpstream({
        pools,
        deployment,
        apiKey: this.#dependencies.apiKey(deployment.providerId),
        form,
        now,
      });
      if (outcome.ok) {
        return {
          text: outcome.text,
          usage: outcome.usage,
          deployment: `${deployment.providerId}/${deployment.upstreamModel}`,
        };
      }
      failure = outcome.error;
      if (!outcome.next) break;
    }
    throw failure ?? new ApiError('internal', 'The transcription model has no deployment.');
  }
}

function toTranscriptionModel(
  model: TranscriptionModelConfig,
  providers: Config['providers'],
): TranscriptionModel {
  const micro = (credits: number) => Math.round(credits * microPerCredit);
  const { input, output } = model.pricing;
  return {
    id: model.id,
    deployments: model.deployments.map((deployment) => ({
      providerId: deployment.provider,
      // load-config.ts checked that it exists and is an openai-transcription provider.
      provider: providers[deployment.provider] as NonNullable<Config['providers'][string]>,
      upstreamModel: deployment.upstreamModel,
    })),
    perSecond: micro(model.pricing.perSecond),
    tokens:
      input !== undefined && output !== undefined
        ? { input: micro(input), output: micro(output) }
        : undefined,
  };
}

/** The header's duration × the price per second, rounded up once, in exact integers. */
export function priceOfHeader(header: WavHeader, perSecond: number): number {
  const scaled = BigInt(header.dataBytes) * BigInt(perSecond);
  const rate = BigInt(header.byteRate);
  return Number((scaled + rate - 1n) / rate);
}

/**
 * What the upstream's reported usage costs: tokens at the token prices when the model has them,
 * seconds at the price per second; undefined when the usage says nothing the model can price
 * (the header's duration is charged then).
 */
export function priceOfUsage(
  usage: TranscriptionUsage | undefined,
  model: Pick<TranscriptionModel, 'perSecond' | 'tokens'>,
): number | undefined {
  if (usage === undefined) return undefined;
  if (usage.type === 'duration') {
    // Milliseconds keep the product an exact integer before the one rounding up.
    return Math.ceil((Math.round(usage.seconds * 1000) * model.perSecond) / 1000);
  }
  if (model.tokens === undefined) return undefined;
  const scaled =
    BigInt(usage.inputTokens) * BigInt(model.tokens.input) +
    BigInt(usage.outputTokens) * BigInt(model.tokens.output);
  return Number((scaled + 999_999n) / 1_000_000n);
}
