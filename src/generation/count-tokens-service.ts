import type { Principal } from '../auth/authenticator.ts';
import type { Deployment, ModelCatalog } from '../catalog/model-catalog.ts';
import type {
  CodecResult,
  GenerationCall,
  TranslationIssue,
} from '../canonical/generation-call.ts';
import type { TokenizerName } from '../config/config-schema.ts';
import { readOpenAIChatTokenizeCount } from '../providers/openai-chat/convert-to-openai-chat-tokenize-request.ts';
import { readOpenAIInputTokens } from '../providers/openai-responses/convert-to-openai-input-tokens-request.ts';
import {
  bedrockCountTokensPath,
  bedrockInvokeCountTokensBody,
  readBedrockInputTokens,
} from '../providers/bedrock/convert-to-bedrock-count-tokens-request.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { mapUpstreamStatus, upstreamOrigin } from '../providers/shared/map-upstream-failure.ts';
import { withGoogleRetryAfter } from '../providers/shared/google-retry-info.ts';
import { isTransportFailure, type UpstreamPools } from '../providers/shared/upstream-pool.ts';
import type { AbortHandle } from '../shared/abort-handle.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { SurfaceCodec } from '../surfaces/surface-codec.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import { countCallTokens } from './count-call-tokens.ts';
import { countsInputTokens } from './counts-input-tokens.ts';
import type { PromptTokenizers } from './prompt-tokenizers.ts';
import { UpstreamCredentialError, type TransportRequest } from '../providers/provider-transport.ts';
import { buildUpstreamHeaders } from './upstream-headers.ts';
import type { ProviderCodec } from '../providers/provider-codec.ts';
import type { UpstreamDialect } from '../providers/provider-transport.ts';

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
  /** Canonical call → the body of a chat server's tokenize route (vLLM `/tokenize`). */
  encodeOpenAIChatTokenize(
    call: GenerationCall,
    upstreamModel: string,
  ): CodecResult<Record<string, unknown>>;
  /** The codec of each upstream dialect, for a transport's own counting call. */
  codecs: Record<UpstreamDialect, ProviderCodec>;
  anthropicCountPath: string;
  openAIInputTokensPath: string;
  /** The local tokenizers of the catalog's deployments (prompt-tokenizers.ts). */
  tokenizers: PromptTokenizers;
  providerKey(providerId: string): string | undefined;
  now(): number;
}

/** A count and what counted it (sent as `x-switchyard-token-count-source`). */
export interface TokenCount {
  input_tokens: number;
  /** `upstream` (its count endpoint), `upstream-tokenize` (its tokenize route) or `local:<encoding>`. */
  source: string;
}

type CountingMethod =
  'anthropic' | 'bedrock-invoke' | 'input-tokens' | 'tokenize' | 'transport' | 'local';

/** How a deployment's prompts are counted: the upstream's own way first, the local one last. */
function countingMethod(deployment: Deployment): CountingMethod | undefined {
  const { provider } = deployment;
  if (provider.kind === 'anthropic') return 'anthropic';
  // Claude on Bedrock: the client's own body as InvokeModel takes it, to CountTokens.
  if (provider.kind === 'bedrock' && deployment.dialects.messages === 'anthropic')
    return 'bedrock-invoke';
  // Claude on a cloud that counts a Messages body on a route of its own (Vertex AI): the
  // client's body is counted as it is, like Anthropic's own count.
  if (deployment.dialects.messages === 'anthropic' && deployment.transport.countTokens)
    return 'anthropic';
  if (countsInputTokens(provider)) return 'input-tokens';
  if (provider.tokenizePath !== undefined) return 'tokenize';
  if (deployment.transport.countTokens !== undefined) return 'transport';
  return deployment.tokenizer !== undefined ? 'local' : undefined;
}

function refuseIssues(modelId: string, issues: TranslationIssue[]): void {
  if (issues.length === 0) return;
  throw new ApiError(
    'unrepresentable_field',
    `Counting for "${modelId}" cannot represent: ${issues.map((issue) => `${issue.path} (${issue.reason})`).join('; ')}.`,
    { details: { issues } },
  );
}

/**
 * POST /v1/messages/count_tokens (docs/decisions/0031): the upstream's own count where it has one
 * (Anthropic count_tokens, OpenAI responses input_tokens — counts-input-tokens.ts says which
 * OpenAI-style upstreams have it — or a chat server's tokenize route, `tokenizePath`); else the
 * model family's tokenizer, counted locally (decisions/0031); otherwise 400. Never an invented
 * number.
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
  }): Promise<TokenCount> {
    const dependencies = this.#dependencies;
    const modelId = String(input.body.model);
    const model = dependencies.catalog.get(modelId);
    if (model === undefined) throw new ApiError('unknown_model', `Unknown model "${modelId}".`);
    const allowed = input.principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(model.id)) throw new ApiError('model_not_allowed');
    const deployment = model.deployments.find((candidate) => countingMethod(candidate));
    const method = deployment === undefined ? undefined : countingMethod(deployment);
    if (deployment === undefined || method === undefined) {
      throw new ApiError(
        'counting_not_supported',
        `Token counting is not supported for the model "${model.id}": its upstream has no counting endpoint and no known tokenizer.`,
      );
    }
    const signal = AbortSignal.timeout(deployment.provider.firstByteTimeoutMs);
    if (method === 'anthropic') {
      const body = dependencies.anthropicPassthrough.prepare(input.body, {
        upstreamModel: deployment.upstreamModel,
        promptCache: 'off',
        defaultMaxOutputTokens: model.maxOutputTokens,
      }).body;
      delete body.max_tokens;
      delete body.stream;
      const request = deployment.transport.countTokens?.(
        deployment.upstreamModel,
        'anthropic',
        body,
      ) ?? {
        path: dependencies.anthropicCountPath,
        body,
        // Anthropic's count has the same `input_tokens` field.
        read: readOpenAIInputTokens,
      };
      const counted = await this.#ask(deployment, request.path, request.body, {
        clientHeaders: input.headers,
        sameDialect: true,
        signal,
        read: request.read,
      });
      return { input_tokens: counted, source: 'upstream' };
    }
    if (method === 'bedrock-invoke') {
      // InvokeModel's body needs an output limit; it does not change the count.
      const body = dependencies.anthropicPassthrough.prepare(
        { max_tokens: model.maxOutputTokens, ...input.body },
        {
          upstreamModel: deployment.upstreamModel,
          promptCache: 'off',
          defaultMaxOutputTokens: model.maxOutputTokens,
        },
      ).body;
      const invokeBody =
        deployment.transport.adaptBody?.(body, {
          dialect: 'anthropic',
          stream: false,
          clientHeaders: input.headers,
        }) ?? body;
      const counted = await this.#ask(
        deployment,
        bedrockCountTokensPath(deployment.upstreamModel),
        bedrockInvokeCountTokensBody(invokeBody),
        { clientHeaders: input.headers, sameDialect: true, signal, read: readBedrockInputTokens },
      );
      return { input_tokens: counted, source: 'upstream' };
    }
    const decoded = dependencies.messagesSurface.decodeRequest({ max_tokens: 1, ...input.body });
    if (method === 'local') {
      refuseIssues(model.id, decoded.issues);
      const encoding = deployment.tokenizer as TokenizerName;
      const countText = await dependencies.tokenizers.load(encoding);
      return {
        input_tokens: countCallTokens(decoded.value, countText),
        source: `local:${encoding}`,
      };
    }
    if (method === 'transport') {
      const counted = await this.#askTransport(
        deployment,
        decoded,
        model.id,
        input.headers,
        signal,
      );
      return { input_tokens: counted, source: 'upstream' };
    }
    const encode =
      method === 'tokenize'
        ? dependencies.encodeOpenAIChatTokenize
        : dependencies.encodeOpenAIInputTokens;
    const encoded = encode(decoded.value, deployment.upstreamModel);
    refuseIssues(model.id, [
      ...decoded.issues,
      // The provider speaks canonical paths; the client is told its own.
      ...decoded.origins.locateIssues(decoded.value, encoded.issues),
    ]);
    const counted = await this.#askOpenAI(deployment, method, encoded.value, input.headers, signal);
    return {
      input_tokens: counted,
      source: method === 'tokenize' ? 'upstream-tokenize' : 'upstream',
    };
  }

  /**
   * The prompt size of a translated call, from the upstream's own counting endpoint or tokenize
   * route, for a message-style stream whose upstream reports usage only at the end
   * (decisions/0003: used when it answers before the first event). Undefined when the upstream
   * has neither, the call cannot be counted, or the count fails.
   */
  async countPrompt(
    deployment: Deployment,
    call: GenerationCall,
    clientHeaders: Headers,
    signal: AbortHandle,
  ): Promise<number | undefined> {
    const method = countingMethod(deployment);
    if (method !== 'input-tokens' && method !== 'tokenize') return undefined;
    const encode =
      method === 'tokenize'
        ? this.#dependencies.encodeOpenAIChatTokenize
        : this.#dependencies.encodeOpenAIInputTokens;
    const encoded = encode(call, deployment.upstreamModel);
    if (encoded.issues.length > 0) return undefined;
    try {
      return await this.#askOpenAI(deployment, method, encoded.value, clientHeaders, signal);
    } catch {
      return undefined;
    }
  }

  /** A count through the deployment's transport, of the body its dialect's codec encodes. */
  #askTransport(
    deployment: Deployment,
    decoded: ReturnType<SurfaceCodec['decodeRequest']>,
    modelId: string,
    clientHeaders: Headers,
    signal: AbortSignal,
  ): Promise<number> {
    const dialect = deployment.dialects.messages;
    const encoded = this.#dependencies.codecs[dialect].encodeRequest(decoded.value, {
      upstreamModel: deployment.upstreamModel,
      promptCache: 'off',
      defaultMaxOutputTokens: 1,
    });
    refuseIssues(modelId, [
      ...decoded.issues,
      ...decoded.origins.locateIssues(decoded.value, encoded.issues),
    ]);
    const count = deployment.transport.countTokens?.(
      deployment.upstreamModel,
      dialect,
      encoded.value,
    );
    if (count === undefined) throw new ApiError('counting_not_supported');
    return this.#ask(deployment, count.path, count.body, {
      clientHeaders,
      sameDialect: false,
      signal,
      read: count.read,
    });
  }

  #askOpenAI(
    deployment: Deployment,
    method: 'input-tokens' | 'tokenize',
    body: Record<string, unknown>,
    clientHeaders: Headers,
    signal: AbortSignal | AbortHandle,
  ): Promise<number> {
    const tokenize = method === 'tokenize';
    return this.#ask(
      deployment,
      tokenize
        ? (deployment.provider.tokenizePath as string)
        : this.#dependencies.openAIInputTokensPath,
      body,
      {
        clientHeaders,
        sameDialect: false,
        signal,
        read: tokenize ? readOpenAIChatTokenizeCount : readOpenAIInputTokens,
      },
    );
  }

  async #ask(
    deployment: Deployment,
    path: string,
    body: Record<string, unknown>,
    options: {
      clientHeaders: Headers;
      sameDialect: boolean;
      signal: AbortSignal | AbortHandle;
      read: (answer: unknown) => number | undefined;
    },
  ): Promise<number> {
    const dependencies = this.#dependencies;
    let responseText: string;
    let status: number;
    let headers: Headers;
    try {
      const sent: TransportRequest = {
        path,
        headers: buildUpstreamHeaders(deployment.provider, undefined, options.clientHeaders, {
          sameDialect: options.sameDialect,
          stream: false,
        }),
        body: JSON.stringify(body),
      };
      const key = deployment.targets[0]?.key;
      if (key !== undefined) await deployment.transport.authorize(sent, key);
      const response = await dependencies.pools.send(deployment.provider, {
        ...sent,
        signal: options.signal,
      });
      status = response.statusCode;
      headers = response.headers;
      responseText = await response.body.text();
    } catch (error) {
      const uncredentialed = error instanceof UpstreamCredentialError;
      if (!uncredentialed && !isTransportFailure(error) && !(error instanceof DOMException))
        throw error;
      throw new ApiError(
        'upstream_error',
        `${uncredentialed ? "The upstream's credentials could not be obtained" : 'The upstream could not be reached'}: ${(error as Error).message}`,
      );
    }
    if (status >= 400) {
      const key = dependencies.providerKey(deployment.providerId);
      const origin = upstreamOrigin(deployment.providerId, deployment.provider, path, key);
      const failureHeaders = withGoogleRetryAfter(headers, responseText);
      throw mapUpstreamStatus(status, failureHeaders, responseText, dependencies.now(), origin)
        .error;
    }
    const counted = options.read(parseUntrustedJson(responseText));
    if (counted === undefined)
      throw new ApiError('upstream_error', 'The upstream count had no token count.');
    return counted;
  }
}
