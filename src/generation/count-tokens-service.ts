import type { Principal } from '../auth/authenticator.ts';
import type { Deployment, ModelCatalog } from '../catalog/model-catalog.ts';
import type { CodecResult, GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { mapUpstreamStatus } from '../providers/shared/map-upstream-failure.ts';
import { isTransportFailure, type UpstreamPools } from '../providers/shared/upstream-pool.ts';
import type { AbortHandle } from '../shared/abort-handle.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { SurfaceCodec } from '../surfaces/surface-codec.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import { countsInputTokens } from './counts-input-tokens.ts';
import { buildUpstreamHeaders } from './upstream-headers.ts';

type Headers = Record<string, string | string[] | undefined>;

export interface CountTokensDependencies {
  catalog: ModelCatalog;
  pools: UpstreamPools;
  messagesSurface: SurfaceCodec;
  anthropicPassthrough: PassthroughAdapter;
  /** Canonical call → OpenAI `/v1/responses/input_tokens` body. */
  encodeOpenAIInputTokens(
    call: GenerationCall,
    upstreamModel: string,
  ): CodecResult<Record<string, unknown>>;
  anthropicCountPath: string;
  openAIInputTokensPath: string;
  providerKey(providerId: string): string | undefined;
  now(): number;
}

/**
 * POST /v1/messages/count_tokens (spec §4.3): the upstream's own count where it has one
 * (Anthropic count_tokens, OpenAI responses input_tokens; counts-input-tokens.ts says which
 * OpenAI-style upstreams have it); otherwise 400. Never an invented number.
 */
export class CountTokensService {
  readonly #dependencies: CountTokensDependencies;

  constructor(dependencies: CountTokensDependencies) {
    this.#dependencies = dependencies;
  }

  async count(input: {
    body: Record<string, unknown>;
    principal: Principal;
    headers: Headers;
  }): Promise<{ input_tokens: number }> {
    const dependencies = this.#dependencies;
    const modelId = String(input.body.model);
    const model = dependencies.catalog.get(modelId);
    if (model === undefined) throw new ApiError('unknown_model', `Unknown model "${modelId}".`);
    const allowed = input.principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(model.id)) throw new ApiError('model_not_allowed');
    const deployment = model.deployments.find(
      (candidate) =>
        candidate.provider.kind === 'anthropic' || countsInputTokens(candidate.provider),
    );
    if (deployment === undefined) {
      throw new ApiError(
        'counting_not_supported',
        `Token counting is not supported for the model "${model.id}": its upstream has no counting endpoint.`,
      );
    }
    if (deployment.provider.kind === 'anthropic') {
      const body = dependencies.anthropicPassthrough.prepare(input.body, {
        upstreamModel: deployment.upstreamModel,
        promptCache: 'off',
        defaultMaxOutputTokens: model.maxOutputTokens,
      }).body;
      delete body.max_tokens;
      delete body.stream;
      return this.#ask(deployment, dependencies.anthropicCountPath, body, input.headers, {
        sameDialect: true,
        signal: AbortSignal.timeout(deployment.provider.firstByteTimeoutMs),
      });
    }
    const decoded = dependencies.messagesSurface.decodeRequest({ max_tokens: 1, ...input.body });
    const encoded = dependencies.encodeOpenAIInputTokens(decoded.value, deployment.upstreamModel);
    const issues = [...decoded.issues, ...encoded.issues];
    if (issues.length > 0) {
      throw new ApiError(
        'unrepresentable_field',
        `Counting for "${model.id}" cannot represent: ${issues.map((issue) => `${issue.path} (${issue.reason})`).join('; ')}.`,
        {
          details: { issues },
        },
      );
    }
    return this.#ask(deployment, dependencies.openAIInputTokensPath, encoded.value, input.headers, {
      sameDialect: false,
      signal: AbortSignal.timeout(deployment.provider.firstByteTimeoutMs),
    });
  }

  /**
   * The prompt size of a translated call, from the upstream's own counting endpoint, for a
   * message-style stream whose upstream reports usage only at the end (CLIENTS.md: message_start
   * carries the real prompt size). Undefined when the upstream has no such endpoint, the call
   * cannot be counted, or the count fails: the caller then waits for the upstream's own usage.
   */
  async countPrompt(
    deployment: Deployment,
    call: GenerationCall,
    clientHeaders: Headers,
    signal: AbortHandle,
  ): Promise<number | undefined> {
    if (!countsInputTokens(deployment.provider)) return undefined;
    const encoded = this.#dependencies.encodeOpenAIInputTokens(call, deployment.upstreamModel);
    if (encoded.issues.length > 0) return undefined;
    try {
      const counted = await this.#ask(
        deployment,
        this.#dependencies.openAIInputTokensPath,
        encoded.value,
        clientHeaders,
        { sameDialect: false, signal },
      );
      return counted.input_tokens;
    } catch {
      return undefined;
    }
  }

  async #ask(
    deployment: Deployment,
    path: string,
    body: Record<string, unknown>,
    clientHeaders: Headers,
    options: { sameDialect: boolean; signal: AbortSignal | AbortHandle },
  ): Promise<{ input_tokens: number }> {
    const dependencies = this.#dependencies;
    let responseText: string;
    let status: number;
    let headers: Headers;
    try {
      const response = await dependencies.pools.send(deployment.provider, {
        path,
        headers: buildUpstreamHeaders(
          deployment.provider,
          dependencies.providerKey(deployment.providerId),
          clientHeaders,
          { sameDialect: options.sameDialect, stream: false },
        ),
        body: JSON.stringify(body),
        signal: options.signal,
      });
      status = response.statusCode;
      headers = response.headers;
      responseText = await response.body.text();
    } catch (error) {
      if (!isTransportFailure(error) && !(error instanceof DOMException)) throw error;
      throw new ApiError(
        'upstream_error',
        `The upstream could not be reached: ${(error as Error).message}`,
      );
    }
    if (status >= 400)
      throw mapUpstreamStatus(status, headers, responseText, dependencies.now()).error;
    const parsed = parseUntrustedJson(responseText) as { input_tokens?: unknown };
    if (
      typeof parsed.input_tokens !== 'number' ||
      !Number.isInteger(parsed.input_tokens) ||
      parsed.input_tokens < 0
    ) {
      throw new ApiError('upstream_error', 'The upstream count had no input_tokens.');
    }
    return { input_tokens: parsed.input_tokens };
  }
}
