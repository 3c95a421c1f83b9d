import type { Principal } from '../auth/authenticator.ts';
import type { CatalogModel, Deployment, ModelCatalog } from '../catalog/model-catalog.ts';
import type { CallOrigins } from '../canonical/call-origins.ts';
import type { GenerationCall, TranslationIssue } from '../canonical/generation-call.ts';
import type { Usage } from '../canonical/usage.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type {
  ProviderCodec,
  ProviderKind,
  ProviderRequestOptions,
} from '../providers/provider-codec.ts';
import {
  mapUpstreamStatus,
  upstreamOrigin,
  upstreamUrlPath,
} from '../providers/shared/map-upstream-failure.ts';
import {
  isTransportFailure,
  type UpstreamPools,
  type UpstreamResponse,
} from '../providers/shared/upstream-pool.ts';
import type { SurfaceCodec, SurfaceName } from '../surfaces/surface-codec.ts';
import {
  BillingSession,
  type BillingDependencies,
  type SessionSummary,
} from './billing-session.ts';
import { detectRequiredCapabilities } from './detect-required-capabilities.ts';
import { boundPromptTokens, countPromptLocally } from './bound-prompt-tokens.ts';
import type { PromptTokenizers } from './prompt-tokenizers.ts';
import { sizePromptAtStart } from './prompt-size-at-start.ts';
import { isIgnoredField } from './match-ignored-field.ts';
import { limitOutputTokens } from './limit-output-tokens.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import { readPromptCacheMode } from './prompt-cache-mode.ts';
import { relayStream, translateStream, type StreamContext } from './relay-stream.ts';
import { mintResponseId } from './surface-response-id.ts';
import { buildUpstreamHeaders } from './upstream-headers.ts';
import { readJsonAnswer } from './read-json-answer.ts';
import { createModelRenamer } from './rename-relayed-model.ts';
import { AbortHandle, type AbortSource } from '../shared/abort-handle.ts';
import { encodeEdit, releaseSource } from '../shared/json-source.ts';
import { copyWith } from '../shared/copy-with.ts';

type Headers = Record<string, string | string[] | undefined>;

export interface GenerationDependencies {
  catalog: ModelCatalog;
  pools: UpstreamPools;
  billing: BillingDependencies;
  providers: Record<ProviderKind, ProviderCodec>;
  passthrough: Record<SurfaceName, PassthroughAdapter>;
  /** The upstream key of a provider (read from its configured environment variable). */
  providerKey(providerId: string): string | undefined;
  now(): number;
  /**
   * Responses-style compaction (docs/decisions/0013); without it compaction items are translation
   * issues.
   */
  compaction?: ResponsesCompactionHook;
  /** Conversation state kept around a surface's turns (docs/decisions/0012: responses). */
  turnHooks?: Partial<Record<SurfaceName, GenerationTurnHook>>;
  /** The upstream's own prompt count, for streams whose first event must carry it. */
  promptCounter?: PromptCounter;
  /** Local tokenizers of the deployments' models, for the same (prompt-tokenizers.ts). */
  promptTokenizers?: PromptTokenizers;
}

export interface PromptCounter {
  /** Never rejects: undefined when the upstream cannot count the call. */
  countPrompt(
    deployment: Deployment,
    call: GenerationCall,
    clientHeaders: Headers,
    signal: AbortHandle,
  ): Promise<number | undefined>;
}

export interface GenerationInput {
  surface: SurfaceCodec;
  body: Record<string, unknown>;
  bodyBytes: number;
  principal: Principal;
  headers: Headers;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSource;
  /** Replaces the surface's turn hook for this call (a WebSocket connection's own history). */
  turnHook?: GenerationTurnHook;
  /**
   * What usage records and ledger entries call this request (default: the surface name), for
   * features that generate through a surface's dialect (`evaluation`).
   */
  meteredAs?: string;
  /**
   * The call needs its whole output limit (a forced tool call whose JSON must be complete): a
   * balance that cannot cover it answers 402 rather than a lower limit (docs/decisions/0100).
   */
  keepOutputLimit?: boolean;
  /** Told what the request came to (model, status, tokens, cost) once its billing ends. */
  onSettled?: (summary: SessionSummary) => void;
}

export type GenerationReply =
  | { kind: 'json'; headers: Record<string, string>; body: string; trace?: GenerationTrace }
  /** `events`: chunks of one or more whole SSE frames (splitSseFrames), one per upstream read. */
  | { kind: 'stream'; headers: Record<string, string>; events: AsyncGenerator<string> };

/**
 * Where a non-streamed answer came from and what it cost, for callers that build their own
 * answer from several generations (evaluation: usage summed, deployments and request ids).
 */
export interface GenerationTrace {
  /** `provider-id/upstream-model` of the deployment that answered. */
  deployment: string;
  /** The upstream's own request id header (`request-id`, `x-request-id`), when it sent one. */
  upstreamRequestId: string | undefined;
  usage: Usage | undefined;
  /** Micro-credits charged. */
  cost: number;
}

/**
 * State kept around one turn (docs/decisions/0012). Before anything else the hook may replace the
 * body (a stored history expanded into it); then it sees the reply, to keep the finished response.
 */
export interface GenerationTurnHook {
  /** Undefined leaves the turn as it came. */
  prepare(input: GenerationInput): Promise<PreparedTurn | undefined>;
}

export interface PreparedTurn {
  body: Record<string, unknown>;
  bodyBytes: number;
  /** A stream reply is observed as it is consumed, so the hook sees its last event. */
  observe(reply: GenerationReply): Promise<GenerationReply>;
}

/**
 * Asked before planning a responses request (src/compaction/): returns the body with the
 * gateway's compaction items expanded, or answers a `compaction_trigger` itself, running its
 * summary turn through `generate` so that turn is limited, held, settled and recorded as usual.
 */
export interface ResponsesCompactionHook {
  prepare(
    input: GenerationInput,
    model: CatalogModel,
    generate: (input: GenerationInput) => Promise<GenerationReply>,
  ): Promise<
    { kind: 'continue'; body: Record<string, unknown> } | { kind: 'reply'; reply: GenerationReply }
  >;
}

const sameDialectProvider: Record<SurfaceName, ProviderKind> = {
  messages: 'anthropic',
  chat: 'openai-chat',
  responses: 'openai-responses',
};

/** An attempt's request, built per deployment because deployments may speak other dialects. */
interface PlannedAttempt {
  deployment: Deployment;
  sameDialect: boolean;
  body: Record<string, unknown>;
  /** Same dialect: the client's body that `body` edits, whose text is reused (json-source.ts). */
  source?: Record<string, unknown>;
  call: GenerationCall | undefined;
  dropUsageChunk: boolean;
}

/** Anthropic sends `request-id`, OpenAI `x-request-id`. */
function readUpstreamRequestId(headers: UpstreamResponse['headers']): string | undefined {
  const value = headers['request-id'] ?? headers['x-request-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function describeIssues(issues: TranslationIssue[], model: string, route: string): string {
  const listed = issues.map((issue) => `${issue.path} (${issue.reason})`).join('; ');
  return `The route ${route} for model "${model}" cannot represent: ${listed}.`;
}

/** Issues whose field the operator allowed to be ignored for this model (docs/architecture.md). */
function splitIgnored(
  issues: TranslationIssue[],
  model: CatalogModel,
  body: Record<string, unknown>,
): { kept: TranslationIssue[]; ignored: string[] } {
  const kept: TranslationIssue[] = [];
  const ignored: string[] = [];
  for (const issue of issues) {
    if (isIgnoredField(model.ignoreFields, issue.path, body)) ignored.push(issue.path);
    else kept.push(issue);
  }
  return { kept, ignored };
}

function requestedMaxOutput(
  surface: SurfaceName,
  body: Record<string, unknown>,
): number | undefined {
  const value =
    surface === 'messages'
      ? body.max_tokens
      : surface === 'responses'
        ? body.max_output_tokens
        : (body.max_completion_tokens ?? body.max_tokens);
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * An Anthropic thinking budget must be at least 1 024 tokens and below `max_tokens` (Messages
 * API, extended thinking), so a thinking request is never lowered under 1 025.
 */
const leastThinkingOutput = 1_025;

/** The least output limit the balance may lower this call to (docs/decisions/0100). */
function minimumOutputLimit(
  surface: SurfaceName,
  body: Record<string, unknown>,
  configured: number | undefined,
): number | undefined {
  if (configured === undefined) return undefined;
  const thinking = body.thinking as { type?: unknown } | undefined;
  return surface === 'messages' && thinking?.type === 'enabled'
    ? Math.max(configured, leastThinkingOutput)
    : configured;
}

/**
 * The text-generation use case (docs/architecture.md): decode → resolve model → capability check →
 * rate limit → hold → provider call with fallback before the first byte → meter → settle → encode.
 */
export class GenerationService {
  readonly #dependencies: GenerationDependencies;

  constructor(dependencies: GenerationDependencies) {
    this.#dependencies = dependencies;
  }

  async generate(input: GenerationInput): Promise<GenerationReply> {
    const hook = input.turnHook ?? this.#dependencies.turnHooks?.[input.surface.name];
    const turn = await hook?.prepare(input);
    if (turn === undefined) return this.#generate(input);
    const reply = await this.#generate(
      copyWith(input, { body: turn.body, bodyBytes: turn.bodyBytes }),
    );
    return turn.observe(reply);
  }

  /** The turn as it reaches the upstream; internal turns (compaction's summary) start here. */
  async #generate(input: GenerationInput): Promise<GenerationReply> {
    const { catalog } = this.#dependencies;
    const { surface, principal } = input;
    let { body } = input;
    const modelId = String(body.model);
    const model = catalog.get(modelId);
    if (model === undefined) {
      throw new ApiError(
        'unknown_model',
        `Unknown model "${modelId}". Call GET /v1/models and use an exact model id from it.`,
      );
    }
    const allowed = principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(model.id)) {
      throw new ApiError('model_not_allowed', `This token may not use the model "${model.id}".`);
    }
    const { compaction } = this.#dependencies;
    if (surface.name === 'responses' && compaction !== undefined) {
      const prepared = await compaction.prepare(input, model, (next) => this.#generate(next));
      if (prepared.kind === 'reply') return prepared.reply;
      body = prepared.body;
    }
    const promptCache = readPromptCacheMode(input.headers);
    this.#checkCapabilities(surface.name, body, model);
    const stream = body.stream === true;

    const maxOutputTokens = Math.min(
      requestedMaxOutput(surface.name, body) ?? model.maxOutputTokens,
      model.maxOutputTokens,
    );
    const options: ProviderRequestOptions = {
      upstreamModel: '',
      promptCache,
      defaultMaxOutputTokens: model.maxOutputTokens,
    };
    const planned = this.#planAttempts(surface, body, model, options, maxOutputTokens);
    let attempts = planned.attempts;
    const ignored = planned.ignored;

    const start = {
      requestId: input.requestId,
      principal,
      model,
      surface: input.meteredAs ?? surface.name,
      promptTokens: await boundPromptTokens(body, model, this.#dependencies.promptTokenizers),
      maxOutputTokens,
      minimumOutputTokens:
        input.keepOutputLimit === true
          ? undefined
          : minimumOutputLimit(surface.name, body, this.#dependencies.billing.minimumOutputTokens),
      ...(input.onSettled !== undefined ? { onEnd: input.onSettled } : {}),
    };
    let session: BillingSession;
    try {
      session = await BillingSession.open(this.#dependencies.billing, start);
    } catch (error) {
      // A refused request (429, 402) still leaves its usage record, at no cost.
      if (error instanceof ApiError)
        await BillingSession.recordRefusal(this.#dependencies.billing, start, error.status);
      throw error;
    }
    const headers: Record<string, string> = {};
    if (session.outputLimit < maxOutputTokens) {
      // docs/decisions/0100: the balance affords a shorter answer; the upstream is sent that
      // limit (its stop reason says when it is reached) and the client is told.
      attempts = this.#planAttempts(surface, body, model, options, session.outputLimit).attempts;
      headers['x-switchyard-output-limit'] = String(session.outputLimit);
    }

    const upstreamAbort = new AbortHandle();
    const onClientGone = () => upstreamAbort.abort();
    input.signal.addEventListener('abort', onClientGone, { once: true });
    // decisions/0003: a message-style stream from an OpenAI-style upstream starts at once, with
    // the best prompt size known then; the upstream's count runs beside the call.
    const sizePrompt = (attempt: PlannedAttempt | undefined) =>
      stream && surface.inputUsageAtStart === true && attempt?.call !== undefined
        ? sizePromptAtStart(attempt.deployment, attempt.call, {
            counter: this.#dependencies.promptCounter,
            tokenizers: this.#dependencies.promptTokenizers,
            clientHeaders: input.headers,
            signal: upstreamAbort,
          })
        : undefined;
    let promptSize = sizePrompt(attempts[0]);
    let answered: { attempt: PlannedAttempt; response: UpstreamResponse };
    try {
      answered = await this.#callWithFallback(attempts, input.headers, stream, upstreamAbort);
    } catch (error) {
      input.signal.removeEventListener('abort', onClientGone);
      promptSize?.discard();
      const status = error instanceof ApiError ? error.status : 500;
      await session.end({
        usage: undefined,
        deployment: null,
        outcome: input.signal.aborted ? 'cancelled' : 'upstream_error',
        status,
      });
      throw error;
    }

    const { attempt, response } = answered;
    if (attempt !== attempts[0]) {
      promptSize?.discard();
      promptSize = sizePrompt(attempt);
    }
    if (ignored.length > 0) headers['x-switchyard-ignored-fields'] = ignored.join(', ');
    const context: StreamContext = {
      surface,
      encodeContext: {
        responseId: mintResponseId(surface.name),
        model: model.id,
        createdAt: Math.floor(this.#dependencies.now() / 1000),
      },
      request: body,
      renameModel: createModelRenamer(model.id),
      session,
      countPrompt: () =>
        countPromptLocally(
          body,
          attempt.deployment,
          this.#dependencies.promptTokenizers,
          model.contextWindow,
        ),
      outputLimit: session.outputLimit,
      deployment: attempt.deployment.label,
      abort: () => upstreamAbort.abort(),
      clientGone: () => input.signal.aborted,
      cleanup: () => input.signal.removeEventListener('abort', onClientGone),
    };

    if (!stream) {
      const answer = await readJsonAnswer({
        response,
        context,
        sameDialect: attempt.sameDialect,
        passthrough: this.#dependencies.passthrough[surface.name],
        provider: this.#dependencies.providers[attempt.deployment.provider.kind],
        call: attempt.call,
      });
      const trace: GenerationTrace = {
        deployment: attempt.deployment.label,
        upstreamRequestId: readUpstreamRequestId(response.headers),
        usage: answer.usage,
        cost: answer.cost,
      };
      return {
        kind: 'json',
        headers: copyWith(headers, { 'content-type': 'application/json' }),
        body: answer.text,
        trace,
      };
    }
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    const events = attempt.sameDialect
      ? relayStream(
          response,
          context,
          this.#dependencies.passthrough[surface.name],
          attempt.dropUsageChunk,
        )
      : translateStream(
          response,
          context,
          this.#dependencies.providers[attempt.deployment.provider.kind],
          attempt.call as GenerationCall,
          promptSize,
        );
    return { kind: 'stream', headers, events };
  }

  #checkCapabilities(
    surface: SurfaceName,
    body: Record<string, unknown>,
    model: CatalogModel,
  ): void {
    const required = detectRequiredCapabilities(surface, body);
    const missing = (Object.keys(required) as Array<keyof typeof required>).filter(
      (capability) => required[capability] && !model.capabilities[capability],
    );
    if (missing.length > 0) {
      const names: Record<string, string> = {
        streaming: 'streaming',
        tools: 'tools',
        vision: 'image input',
        reasoning: 'reasoning',
      };
      throw new ApiError(
        'unsupported_capability',
        `The model "${model.id}" does not support ${missing.map((capability) => names[capability]).join(', ')}.`,
      );
    }
  }

  /**
   * Builds the request for every deployment up front. The first deployment's translation issues
   * are the client's answer (400); a later deployment that cannot carry the request is skipped,
   * never sent a reduced request.
   */
  #planAttempts(
    surface: SurfaceCodec,
    body: Record<string, unknown>,
    model: CatalogModel,
    baseOptions: ProviderRequestOptions,
    outputLimit: number,
  ): { attempts: PlannedAttempt[]; ignored: string[] } {
    const attempts: PlannedAttempt[] = [];
    let decoded:
      { call: GenerationCall; issues: TranslationIssue[]; origins: CallOrigins } | undefined;
    let ignored: string[] = [];
    model.deployments.forEach((deployment, index) => {
      const options = copyWith(baseOptions, { upstreamModel: deployment.upstreamModel });
      const kind = deployment.provider.kind;
      if (kind === sameDialectProvider[surface.name]) {
        const prepared = this.#dependencies.passthrough[surface.name].prepare(body, options);
        attempts.push({
          deployment,
          sameDialect: true,
          // The upstream never writes more than the hold was sized for (docs/decisions/0015).
          body: limitOutputTokens(surface.name, prepared.body, outputLimit),
          source: body,
          call: undefined,
          dropUsageChunk: prepared.dropUsageChunk ?? false,
        });
        return;
      }
      if (decoded === undefined) {
        const result = surface.decodeRequest(body);
        // The upstream never writes more than the hold was sized for (docs/decisions/0015).
        const call = copyWith(result.value, {
          maxOutputTokens: Math.min(result.value.maxOutputTokens ?? outputLimit, outputLimit),
        });
        decoded = { call, issues: result.issues, origins: result.origins };
      }
      const encoded = this.#dependencies.providers[kind].encodeRequest(decoded.call, options);
      // The provider speaks canonical paths; the client is told its own.
      const encodedIssues = decoded.origins.locateIssues(decoded.call, encoded.issues);
      const split = splitIgnored([...decoded.issues, ...encodedIssues], model, body);
      if (split.kept.length > 0) {
        if (index === 0) {
          throw new ApiError(
            'unrepresentable_field',
            describeIssues(split.kept, model.id, `${surface.name} → ${kind}`),
            {
              details: { model: model.id, route: `${surface.name} → ${kind}`, issues: split.kept },
            },
          );
        }
        return;
      }
      if (index === 0) ignored = split.ignored;
      attempts.push({
        deployment,
        sameDialect: false,
        body: encoded.value,
        call: decoded.call,
        dropUsageChunk: false,
      });
    });
    return { attempts, ignored };
  }

  /** docs/architecture.md: retries and fallbacks only before the first byte reaches the client. */
  async #callWithFallback(
    attempts: PlannedAttempt[],
    clientHeaders: Headers,
    stream: boolean,
    signal: AbortHandle,
  ): Promise<{ attempt: PlannedAttempt; response: UpstreamResponse }> {
    const { pools, providers, providerKey, now } = this.#dependencies;
    let lastError: ApiError | undefined;
    let rateLimited: ApiError | undefined;
    for (const [index, attempt] of attempts.entries()) {
      const { provider, providerId } = attempt.deployment;
      const body = encodeEdit(attempt.body, attempt.source);
      // The client's text is only kept for the attempts still to come (json-source.ts).
      if (index === attempts.length - 1) releaseSource(attempt.source);
      const { path } = providers[provider.kind];
      const key = providerKey(providerId);
      const origin = upstreamOrigin(providerId, provider, path, key);
      try {
        const response = await pools.send(provider, {
          path,
          headers: buildUpstreamHeaders(provider, key, clientHeaders, {
            sameDialect: attempt.sameDialect,
            stream,
          }),
          body,
          signal,
        });
        if (response.statusCode < 400) {
          releaseSource(attempt.source);
          return { attempt, response };
        }
        const text = await response.body.text();
        const failure = mapUpstreamStatus(
          response.statusCode,
          response.headers,
          text,
          now(),
          origin,
        );
        if (failure.error.code === 'upstream_rate_limited') rateLimited = failure.error;
        lastError = failure.error;
        if (!failure.retryable) throw failure.error;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (signal.aborted)
          throw new ApiError('upstream_error', 'The client went away.', { status: 499 });
        if (!isTransportFailure(error)) throw error;
        lastError = new ApiError(
          'upstream_error',
          `The upstream could not be reached or read: ${(error as Error).message}`,
          {
            diagnosis: {
              provider: providerId,
              upstreamPath: upstreamUrlPath(provider.baseUrl, path),
              cause: (error as Error).message,
            },
          },
        );
      }
    }
    // An upstream 429 keeps its status and retry-after once every deployment was tried.
    throw rateLimited ?? lastError ?? new ApiError('upstream_error');
  }
}
