import type { Principal } from '../auth/authenticator.ts';
import type {
  CatalogModel,
  Deployment,
  ModelCatalog,
  RoutingTarget,
} from '../catalog/model-catalog.ts';
import type { CallOrigins } from '../canonical/call-origins.ts';
import type { GenerationCall, TranslationIssue } from '../canonical/generation-call.ts';
import type { Usage } from '../canonical/usage.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { formatCredits } from '../billing/micro-credits.ts';
import { rateLimitHeaders } from '../limits/rate-limit-headers.ts';
import type { ProviderCodec, ProviderRequestOptions } from '../providers/provider-codec.ts';
import type { UpstreamDialect } from '../providers/provider-transport.ts';
import { readUpstreamEventBatches } from '../providers/shared/read-upstream-events.ts';
import type { UpstreamPools, UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import { conversationKey } from '../routing/conversation-key.ts';
import type { Router } from '../routing/router.ts';
import type {
  CallObserver,
  ObservedAttempt,
  ObservedCall,
} from '../observability/call-observer.ts';
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
import { routeAttempts, type Answered, type Leg, type PlannedAttempt } from './route-attempts.ts';
import { readJsonAnswer } from './read-json-answer.ts';
import { createModelRenamer } from './rename-relayed-model.ts';
import { AbortHandle, type AbortSource } from '../shared/abort-handle.ts';
import { copyWith } from '../shared/copy-with.ts';
import { settleWithin } from '../shared/settle-within.ts';

type Headers = Record<string, string | string[] | undefined>;

export interface GenerationDependencies {
  catalog: ModelCatalog;
  pools: UpstreamPools;
  billing: BillingDependencies;
  /** The codec of each upstream dialect (a provider kind says which one its deployments speak). */
  providers: Record<UpstreamDialect, ProviderCodec>;
  passthrough: Record<SurfaceName, PassthroughAdapter>;
  /** Chooses each attempt's target and learns from its answer (docs/routing.md). */
  router: Router;
  /** Told of every finished call: metrics, traces (src/observability/). */
  observer?: CallObserver;
  /** Told of every failed attempt, for its one log line (never a key). */
  logAttemptFailure?: (fields: Record<string, unknown>) => void;
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
  /**
   * Told what the request came to (model, status, tokens, cost, attempts, timing) once its
   * billing ends: the record the observer is told, for the request's completion log line.
   */
  onSettled?: (call: ObservedCall) => void;
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

/**
 * The longest an answer waits for the balance it tells (docs/decisions/0149): a store slow to
 * answer costs the client that header, never the answer's time.
 */
const balanceReadBoundMs = 100;

const sameDialectProvider: Record<SurfaceName, UpstreamDialect> = {
  messages: 'anthropic',
  chat: 'openai-chat',
  responses: 'openai-responses',
};

/** What every deployment's request is built from. */
interface RequestPlan {
  surface: SurfaceCodec;
  body: Record<string, unknown>;
  promptCache: ProviderRequestOptions['promptCache'];
  /** The canonical call, decoded once for every cross-dialect deployment. */
  decoded: { value: GenerationCall; issues: TranslationIssue[]; origins: CallOrigins } | undefined;
}

/** Anthropic sends `request-id`, OpenAI `x-request-id`. */
function readUpstreamRequestId(headers: UpstreamResponse['headers']): string | undefined {
  const value = headers['request-id'] ?? headers['x-request-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A header sent once; a repeated one (which W3C trace context calls invalid) counts as absent. */
function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
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

  generate(input: GenerationInput): Promise<GenerationReply> {
    const hook = input.turnHook ?? this.#dependencies.turnHooks?.[input.surface.name];
    // A surface without a turn hook (chat, messages) goes straight to the call.
    return hook === undefined ? this.#generate(input) : this.#generateTurn(input, hook);
  }

  async #generateTurn(input: GenerationInput, hook: GenerationTurnHook): Promise<GenerationReply> {
    const turn = await hook.prepare(input);
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

    const request: RequestPlan = {
      surface,
      body,
      promptCache,
      decoded: undefined,
    };
    const maxOutputTokens = requestedMaxOutput(surface.name, body);
    const first = this.#openLeg(request, model, maxOutputTokens);
    this.#refuseUnrepresentable(first);
    const fallbacks = this.#fallbackModels(model, principal, surface.name, body);
    const legs: Leg[] = [first];

    const bounded = boundPromptTokens(
      body,
      fallbacks.length === 0 ? model : widestWindow(model, fallbacks),
      this.#dependencies.promptTokenizers,
    );
    const prompt = typeof bounded === 'number' ? bounded : await bounded;
    const spent: { target: RoutingTarget | undefined } = { target: undefined };
    const { router, observer } = this.#dependencies;
    const startedAt = this.#dependencies.now();
    const observed: ObservedAttempt[] = [];
    // Set once a stream's headers leave; the call's record reads it when its billing ends.
    let firstByteAt: number | undefined = undefined;
    const traceparent = singleHeader(input.headers.traceparent);
    const start = {
      requestId: input.requestId,
      principal,
      model,
      ...(fallbacks.length > 0 ? { alsoPricedAs: fallbacks } : {}),
      surface: input.meteredAs ?? surface.name,
      promptTokens: prompt,
      maxOutputTokens: first.outputLimit,
      minimumOutputTokens:
        input.keepOutputLimit === true
          ? undefined
          : minimumOutputLimit(surface.name, body, this.#dependencies.billing.minimumOutputTokens),
      // A JSON answer leaves whole once the call is settled: its first byte is its last.
      firstByteAt: () => firstByteAt ?? (stream ? undefined : this.#dependencies.now()),
      onEnd: (summary: SessionSummary) => {
        if (spent.target !== undefined)
          router.spendTokens(spent.target, summary.inputTokens + summary.outputTokens);
        const call: ObservedCall = {
          requestId: input.requestId,
          surface: input.meteredAs ?? surface.name,
          stream,
          requestedModel: model.id,
          model: summary.model,
          accountId: principal.account.id,
          apiKeyId: principal.apiKey.id,
          status: summary.status,
          outcome: summary.outcome,
          usage: summary.usage,
          costMicroCredits: summary.costMicroCredits,
          startedAt,
          endedAt: summary.endedAt,
          firstByteAt,
          attempts: observed,
          // Set even when undefined: every call's record then has one shape.
          maxOutputTokens,
          traceparent,
        };
        input.onSettled?.(call);
        observer?.observe(call);
      },
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
    // docs/decisions/0149: where the client's rate limits stand, as the limiter read them.
    const headers: Record<string, string> = rateLimitHeaders(session.rateLimitStanding);
    const { ledger } = this.#dependencies.billing;
    // A stream's headers leave before its cost is known: it is told the balance it started
    // with, read beside the upstream call so the stream waits for nothing.
    // The embedded store tells it at once; another is read beside the upstream call.
    const peekedAtStart = stream ? ledger.peekAvailable?.(principal.account.id) : undefined;
    const balanceAtStart =
      stream && peekedAtStart === undefined
        ? ledger.getBalance(principal.account.id).then(
            // Handled at once: a call that fails before its answer never awaits it.
            (balance) => balance.available + session.holdAmount,
            () => undefined,
          )
        : undefined;
    if (session.outputLimit < first.outputLimit) {
      // docs/decisions/0100: the balance affords a shorter answer; the upstream is sent that
      // limit (its stop reason says when it is reached) and the client is told.
      first.lower(session.outputLimit);
      headers['x-switchyard-output-limit'] = String(session.outputLimit);
    }
    for (const fallback of fallbacks)
      legs.push(this.#openLeg(request, fallback, session.outputLimit));

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
    // The likeliest first target's count starts with the call; another target's replaces it.
    const likely = model.targets[0]?.deployment;
    let promptSize = sizePrompt(
      likely === undefined ? undefined : (first.attempts.get(likely) ?? undefined),
    );
    let answered: Answered;
    try {
      answered = await routeAttempts(this.#dependencies, legs, {
        clientHeaders: input.headers,
        stream,
        signal: upstreamAbort,
        requestId: input.requestId,
        conversation:
          model.targets.length > 1 && model.routing.affinity
            ? conversationKey(input.headers, body, `${principal.account.id}:${model.id}`)
            : undefined,
        body,
        observed,
      });
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

    const { attempt, response, target, leg } = answered;
    spent.target = target;
    const answeringModel = leg.model;
    if (answeringModel !== model) session.priceAs(answeringModel);
    if (attempt.deployment !== likely) {
      promptSize?.discard();
      promptSize = sizePrompt(attempt);
    }
    if (attempt.ignored.length > 0)
      headers['x-switchyard-ignored-fields'] = attempt.ignored.join(', ');
    headers['x-switchyard-deployment'] =
      `${attempt.deployment.label}; attempts=${answered.attempts}`;
    headers['x-switchyard-model'] = answeringModel.id;
    const context: StreamContext = {
      surface,
      encodeContext: {
        responseId: mintResponseId(surface.name),
        model: answeringModel.id,
        createdAt: Math.floor(this.#dependencies.now() / 1000),
      },
      request: body,
      renameModel: createModelRenamer(answeringModel.id),
      session,
      countPrompt: () =>
        countPromptLocally(
          body,
          attempt.deployment,
          this.#dependencies.promptTokenizers,
          answeringModel.contextWindow,
        ),
      outputLimit: leg.outputLimit,
      deployment: attempt.deployment.label,
      readEventBatches: attempt.deployment.transport.readEventBatches ?? readUpstreamEventBatches,
      abort: () => upstreamAbort.abort(),
      clientGone: () => input.signal.aborted,
      cleanup: () => {
        router.finished(target);
        input.signal.removeEventListener('abort', onClientGone);
      },
    };

    if (!stream) {
      const answer = await readJsonAnswer({
        response,
        context,
        sameDialect: attempt.sameDialect,
        passthrough: this.#dependencies.passthrough[surface.name],
        provider: this.#dependencies.providers[attempt.dialect],
        call: attempt.call,
      });
      const trace: GenerationTrace = {
        deployment: attempt.deployment.label,
        upstreamRequestId: readUpstreamRequestId(response.headers),
        usage: answer.usage,
        cost: answer.cost,
      };
      const settled = session.settlement;
      if (settled !== undefined) {
        // Only a settlement the ledger took has a charge and a balance to tell.
        headers['x-switchyard-cost'] = formatCredits(settled.charged);
        const balance =
          ledger.peekAvailable?.(principal.account.id) ??
          (await settleWithin(
            ledger.getBalance(principal.account.id).then((read) => read.available),
            balanceReadBoundMs,
          ));
        if (balance !== undefined) headers['x-switchyard-balance'] = formatCredits(balance);
      }
      // A JSON answer's billing, and so its record, ended before its first byte: no time to it.
      // The answer's own header object: nothing else holds it, so it takes its type in place.
      headers['content-type'] = 'application/json';
      return {
        kind: 'json',
        headers,
        body: answer.text,
        trace,
      };
    }
    // A store slow to answer loses the header, never delays the stream.
    const startingBalance =
      peekedAtStart !== undefined
        ? peekedAtStart + session.holdAmount
        : balanceAtStart === undefined
          ? undefined
          : await settleWithin(balanceAtStart, balanceReadBoundMs);
    if (startingBalance !== undefined)
      headers['x-switchyard-balance'] = formatCredits(startingBalance);
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
          this.#dependencies.providers[attempt.dialect],
          attempt.call as GenerationCall,
          promptSize,
        );
    // The stream's headers leave now; its first event follows the upstream's.
    firstByteAt = this.#dependencies.now();
    return { kind: 'stream', headers, events };
  }

  #checkCapabilities(
    surface: SurfaceName,
    body: Record<string, unknown>,
    model: CatalogModel,
  ): void {
    const missing = missingCapabilities(surface, body, model);
    if (missing.length > 0) {
      throw new ApiError(
        'unsupported_capability',
        `The model "${model.id}" does not support ${missing.join(', ')}.`,
      );
    }
  }

  /**
   * `model.fallbacks` this request may go to (docs/routing.md): models that exist, that the
   * token may use, and that have every capability the request needs.
   */
  #fallbackModels(
    model: CatalogModel,
    principal: Principal,
    surface: SurfaceName,
    body: Record<string, unknown>,
  ): CatalogModel[] {
    if (model.fallbacks.length === 0) return [];
    const allowed = principal.apiKey.allowedModels;
    const models: CatalogModel[] = [];
    for (const id of model.fallbacks) {
      const fallback = this.#dependencies.catalog.get(id);
      if (fallback === undefined || fallback === model) continue;
      if (allowed !== null && !allowed.includes(fallback.id)) continue;
      if (missingCapabilities(surface, body, fallback).length > 0) continue;
      models.push(fallback);
    }
    return models;
  }

  /**
   * One model's side of the request. Cross-dialect deployments are encoded at once (their
   * translation issues decide whether they can carry the request at all), and so are
   * same-dialect ones whose transport refuses some calls; other same-dialect ones, which always
   * can, only when the router picks them.
   */
  #openLeg(request: RequestPlan, model: CatalogModel, asked: number | undefined): Leg {
    const outputLimit = Math.min(asked ?? model.maxOutputTokens, model.maxOutputTokens);
    const leg: Leg = {
      model,
      outputLimit,
      attempts: new Map(),
      issues: undefined,
      lower(limit: number) {
        if (limit >= leg.outputLimit) return;
        leg.outputLimit = limit;
        for (const [deployment, attempt] of leg.attempts) {
          if (attempt !== null) leg.attempts.delete(deployment);
        }
      },
      attempt: (deployment: Deployment) => {
        let attempt = leg.attempts.get(deployment);
        if (attempt === undefined) {
          attempt = this.#planAttempt(request, leg, deployment);
          leg.attempts.set(deployment, attempt);
        }
        return attempt;
      },
    };
    for (const deployment of model.deployments) {
      if (
        deployment.dialects[request.surface.name] !== sameDialectProvider[request.surface.name] ||
        deployment.transport.refuseCall !== undefined
      )
        leg.attempt(deployment);
    }
    return leg;
  }

  /** 400 when no deployment of the model asked for can carry the request. */
  #refuseUnrepresentable(leg: Leg): void {
    if (leg.issues === undefined) return;
    for (const deployment of leg.model.deployments) {
      if (leg.attempts.get(deployment) !== null) return;
    }
    const { kept, route } = leg.issues;
    throw new ApiError('unrepresentable_field', describeIssues(kept, leg.model.id, route), {
      details: { model: leg.model.id, route, issues: kept },
    });
  }

  /**
   * The request for one deployment, or null when it cannot carry it (its issues kept on the leg,
   * the first ones found). Never a reduced request.
   */
  #planAttempt(request: RequestPlan, leg: Leg, deployment: Deployment): PlannedAttempt | null {
    const { surface, body } = request;
    const options: ProviderRequestOptions = {
      upstreamModel: deployment.upstreamModel,
      promptCache: request.promptCache,
      defaultMaxOutputTokens: leg.model.maxOutputTokens,
    };
    const dialect = deployment.dialects[surface.name];
    const { refuseCall } = deployment.transport;
    if (dialect === sameDialectProvider[surface.name]) {
      if (refuseCall !== undefined) {
        // The relayed body is decoded only for a transport that refuses some of what it carries.
        request.decoded ??= surface.decodeRequest(body);
        const { value, origins } = request.decoded;
        const refused = refuseCall(value, dialect);
        if (refused.length > 0) {
          leg.issues ??= {
            kept: origins.locateIssues(value, refused),
            route: `${surface.name} → ${deployment.provider.kind}`,
          };
          return null;
        }
      }
      const prepared = this.#dependencies.passthrough[surface.name].prepare(body, options);
      return {
        deployment,
        dialect,
        sameDialect: true,
        // The upstream never writes more than the hold was sized for (docs/decisions/0015).
        body: limitOutputTokens(surface.name, prepared.body, leg.outputLimit),
        source: body,
        call: undefined,
        dropUsageChunk: prepared.dropUsageChunk ?? false,
        ignored: [],
      };
    }
    request.decoded ??= surface.decodeRequest(body);
    const decoded = request.decoded;
    // The upstream never writes more than the hold was sized for (docs/decisions/0015).
    const call = copyWith(decoded.value, {
      maxOutputTokens: Math.min(decoded.value.maxOutputTokens ?? leg.outputLimit, leg.outputLimit),
    });
    const encoded = this.#dependencies.providers[dialect].encodeRequest(call, options);
    // The provider speaks canonical paths; the client is told its own.
    const encodedIssues = decoded.origins.locateIssues(call, [
      ...encoded.issues,
      ...(refuseCall?.(call, dialect) ?? []),
    ]);
    const split = splitIgnored([...decoded.issues, ...encodedIssues], leg.model, body);
    if (split.kept.length > 0) {
      leg.issues ??= { kept: split.kept, route: `${surface.name} → ${dialect}` };
      return null;
    }
    return {
      deployment,
      dialect,
      sameDialect: false,
      body: encoded.value,
      call,
      dropUsageChunk: false,
      ignored: split.ignored,
    };
  }
}

/** The capabilities a request needs that the model lacks, named for the client. */
function missingCapabilities(
  surface: SurfaceName,
  body: Record<string, unknown>,
  model: CatalogModel,
): string[] {
  const required = detectRequiredCapabilities(surface, body);
  const names: Record<string, string> = {
    streaming: 'streaming',
    tools: 'tools',
    vision: 'image input',
    reasoning: 'reasoning',
  };
  return (Object.keys(required) as Array<keyof typeof required>)
    .filter((capability) => required[capability] && !model.capabilities[capability])
    .map((capability) => names[capability] as string);
}

/** The model asked for, with the widest context window among its fallbacks (for the hold). */
function widestWindow(model: CatalogModel, fallbacks: CatalogModel[]): CatalogModel {
  const window = Math.max(model.contextWindow, ...fallbacks.map((other) => other.contextWindow));
  return window === model.contextWindow ? model : copyWith(model, { contextWindow: window });
}
