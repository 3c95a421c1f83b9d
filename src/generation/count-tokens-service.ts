import type { Principal } from '../auth/authenticator.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { CodecResult, GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { mapUpstreamStatus } from '../providers/shared/map-upstream-failure.ts';
import { isTransportFailure, type UpstreamPools } from '../providers/shared/upstream-pool.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { SurfaceCodec } from '../surfaces/surface-codec.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
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
 * (Anthropic count_tokens, OpenAI responses input_tokens); otherwise 400. Never an invented number.
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
      (candidate) => candidate.provider.kind !== 'openai-chat',
    );
    if (deployment === undefined) {
      throw new ApiError(
        'counting_not_supported',
        `Token counting is not supported for the model "${model.id}": its upstream has no counting endpoint.`,
      );
    }
    let path: string;
    let body: Record<string, unknown>;
    const sameDialect = deployment.provider.kind === 'anthropic';
    if (sameDialect) {
      path = dependencies.anthropicCountPath;
      body = dependencies.anthropicPassthrough.prepare(input.body, {
        upstreamModel: deployment.upstreamModel,
        promptCache: 'off',
        defaultMaxOutputTokens: model.maxOutputTokens,
      }).body;
      delete body.max_tokens;
      delete body.stream;
    } else {
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
      path = dependencies.openAIInputTokensPath;
      body = encoded.value;
    }
    let responseText: string;
    let status: number;
    let headers: Headers;
    try {
      const response = await dependencies.pools.send(deployment.provider, {
        path,
        headers: buildUpstreamHeaders(
          deployment.provider,
          dependencies.providerKey(deployment.providerId),
          input.headers,
          { sameDialect, stream: false },
        ),
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(deployment.provider.firstByteTimeoutMs),
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
