import type { CatalogModel, Deployment, RoutingTarget } from '../catalog/model-catalog.ts';
import type { GenerationCall, TranslationIssue } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { ObservedAttempt } from '../observability/call-observer.ts';
import {
  UpstreamCredentialError,
  type TransportRequest,
  type UpstreamDialect,
} from '../providers/provider-transport.ts';
import {
  mapUpstreamStatus,
  upstreamOrigin,
  upstreamUrlPath,
} from '../providers/shared/map-upstream-failure.ts';
import {
  isTimeout,
  isTransportFailure,
  type UpstreamPools,
  type UpstreamResponse,
} from '../providers/shared/upstream-pool.ts';
import { withGoogleRetryAfter } from '../providers/shared/google-retry-info.ts';
import { classifyUpstreamStatus } from '../routing/classify-attempt.ts';
import { warmFor } from '../routing/conversation-key.ts';
import { readRetryAfterMs } from '../routing/read-rate-limit-headers.ts';
import type { Blocked, Router } from '../routing/router.ts';
import type { FailureClass } from '../routing/target-health.ts';
import type { AbortHandle } from '../shared/abort-handle.ts';
import { encodeEdit, releaseSource } from '../shared/json-source.ts';
import { buildUpstreamHeaders } from './upstream-headers.ts';

type Headers = Record<string, string | string[] | undefined>;

/** What the attempt loop uses of the generation service's dependencies. */
export interface RouteDependencies {
  pools: UpstreamPools;
  router: Router;
  now(): number;
  /** Told of every failed attempt, for its one log line (never a key). */
  logAttemptFailure?: (fields: Record<string, unknown>) => void;
}

/** An attempt's request, built per deployment because deployments may speak other dialects. */
export interface PlannedAttempt {
  deployment: Deployment;
  /** What the deployment speaks to this request's surface. */
  dialect: UpstreamDialect;
  sameDialect: boolean;
  body: Record<string, unknown>;
  /** Same dialect: the client's body that `body` edits, whose text is reused (json-source.ts). */
  source?: Record<string, unknown>;
  call: GenerationCall | undefined;
  dropUsageChunk: boolean;
  /** Fields the operator let this deployment ignore (x-switchyard-ignored-fields). */
  ignored: string[];
}

/** One model's side of a request: the model asked for, or one of its fallbacks. */
export interface Leg {
  model: CatalogModel;
  /** The output limit its attempts are sent (the model's own maximum at most). */
  outputLimit: number;
  /** Per deployment: its request once built; null when it cannot carry the request. */
  attempts: Map<Deployment, PlannedAttempt | null>;
  /** The first translation issues found, for the 400 when no deployment can carry the request. */
  issues: { kept: TranslationIssue[]; route: string } | undefined;
  /** Lowers the output limit (the balance affords less); built requests are built again. */
  lower(limit: number): void;
  attempt(deployment: Deployment): PlannedAttempt | null;
}

export interface RouteCall {
  clientHeaders: Headers;
  stream: boolean;
  signal: AbortHandle;
  requestId: string;
  /** The conversation's affinity key, when affinity applies. */
  conversation: string | undefined;
  body: Record<string, unknown>;
  /** Every attempt, as the observer is told of it. */
  observed: ObservedAttempt[];
}

export interface Answered {
  leg: Leg;
  attempt: PlannedAttempt;
  target: RoutingTarget;
  response: UpstreamResponse;
  /** Upstream calls made, this one included. */
  attempts: number;
}

/**
 * The attempt loop (docs/routing.md): the router's targets for the model, then for each
 * fallback, until one answers below 400 — only before the first byte reaches the client, within
 * `routing.maxAttempts` and `routing.retryDeadlineMs`. Every failed attempt teaches the router
 * and is one log line; the client sees the most telling failure only when all failed.
 */
export async function routeAttempts(
  dependencies: RouteDependencies,
  legs: Leg[],
  call: RouteCall,
): Promise<Answered> {
  const { pools, router, now } = dependencies;
  const config = router.config;
  const deadline = now() + config.retryDeadlineMs;
  const failures = new FailureSummary(config.cooldownSeconds * 1000);
  let attempts = 0;
  let blocked: Blocked | undefined;
  let previous: FailureClass | undefined;
  legs: for (const leg of legs) {
    const plan = await router.plan(leg.model, leg === legs[0] ? call.conversation : undefined);
    for (const target of leg.model.targets) {
      if (leg.attempts.get(target.deployment) === null) plan.skip(target);
    }
    for (;;) {
      if (attempts >= config.maxAttempts || (attempts > 0 && now() >= deadline)) break legs;
      const target = plan.next();
      if (target === undefined) {
        blocked ??= plan.blocked();
        break;
      }
      const attempt = leg.attempt(target.deployment);
      if (attempt === null) {
        plan.abandon(target);
        router.finished(target);
        continue;
      }
      if (previous !== undefined && backoffAfter.has(previous) && config.backoffMs > 0)
        await waitJittered(config.backoffMs * 2 ** Math.min(attempts - 1, 5), call.signal);
      attempts += 1;
      const { provider, providerId, transport } = target.deployment;
      const path = transport.generationPath(
        target.deployment.upstreamModel,
        attempt.dialect,
        call.stream,
      );
      const sentAt = now();
      const record: ObservedAttempt = {
        target: target.id,
        provider: providerId,
        providerKind: provider.kind,
        deployment: target.deployment.label,
        keyId: target.key.id,
        startedAt: sentAt,
        endedAt: sentAt,
      };
      call.observed.push(record);
      let failure: FailureClass;
      try {
        // One object from the transport to the pool: no copy on the way (src/shared/copy-with.ts).
        const sent: TransportRequest & { signal: AbortHandle } = {
          path,
          headers: buildUpstreamHeaders(provider, undefined, call.clientHeaders, {
            sameDialect: attempt.sameDialect,
            stream: call.stream,
          }),
          body: encodeEdit(
            transport.adaptBody?.(attempt.body, {
              dialect: attempt.dialect,
              stream: call.stream,
              clientHeaders: call.clientHeaders,
            }) ?? attempt.body,
            attempt.source,
          ),
          signal: call.signal,
        };
        const authorized = transport.authorize(sent, target.key);
        if (authorized !== undefined) await authorized;
        const response = await pools.send(provider, sent);
        record.endedAt = now();
        record.status = response.statusCode;
        if (response.statusCode < 400) {
          router.answered(target, response, record.endedAt - sentAt);
          if (plan.session !== undefined) router.keep(plan.session, target, warmFor(call.body));
          releaseSources(legs);
          logAttempts(dependencies, call, failures.others(undefined));
          return { leg, attempt, target, response, attempts };
        }
        const text = await response.body.text();
        failure = classifyUpstreamStatus(response.statusCode, text);
        record.failure = failure;
        // Google's services name their wait in the body only (google-retry-info.ts).
        const failureHeaders = withGoogleRetryAfter(response.headers, text);
        const origin = upstreamOrigin(
          providerId,
          provider,
          path,
          target.key.secret,
          target.key.env,
        );
        const mapped = mapUpstreamStatus(response.statusCode, failureHeaders, text, now(), origin);
        const retryAfterMs = readRetryAfterMs(failureHeaders, now());
        router.failed(target, failure, retryAfterMs);
        if (failure === 'refused') target.deployment.transport.credentialRefused?.(target.key);
        router.finished(target);
        const error = describeAttempt(gatewayFault(mapped.error, failure), target, {
          attempt: attempts,
          failure,
          retryAfterMs,
        });
        if (failure === 'client') {
          releaseSources(legs);
          logAttempts(dependencies, call, failures.others(error));
          throw error;
        }
        failures.add(failure, error, retryAfterMs);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (call.signal.aborted) {
          plan.abandon(target);
          router.finished(target);
          releaseSources(legs);
          throw new ApiError('upstream_error', 'The client went away.', { status: 499 });
        }
        const uncredentialed = error instanceof UpstreamCredentialError;
        if (!uncredentialed && !isTransportFailure(error)) {
          plan.abandon(target);
          router.finished(target);
          releaseSources(legs);
          throw error;
        }
        failure = isTimeout(error) ? 'timeout' : 'connection';
        record.endedAt = now();
        record.failure = failure;
        router.failed(target, failure, undefined);
        router.finished(target);
        failures.add(
          failure,
          describeAttempt(
            new ApiError(
              'upstream_error',
              `${uncredentialed ? "The upstream's credentials could not be obtained" : 'The upstream could not be reached or read'}: ${(error as Error).message}`,
              {
                diagnosis: {
                  provider: providerId,
                  upstreamPath: upstreamUrlPath(provider.baseUrl, path),
                  cause: (error as Error).message,
                },
              },
            ),
            target,
            { attempt: attempts, failure, retryAfterMs: undefined },
          ),
          undefined,
        );
      }
      previous = failure;
      // A prompt too long for this model is too long for all its targets: on to a fallback.
      if (failure === 'context') break;
    }
  }
  releaseSources(legs);
  const shown = failures.worst() ?? refuseBlocked(blocked, legs[0]?.model.id ?? '', now());
  // The error shown is the request's own log line (its diagnosis); the others are one each.
  logAttempts(dependencies, call, failures.others(shown));
  throw shown;
}

/** One warn line per failed attempt the request's own log line does not tell. */
function logAttempts(
  dependencies: RouteDependencies,
  call: RouteCall,
  errors: readonly ApiError[],
): void {
  const log = dependencies.logAttemptFailure;
  if (log === undefined) return;
  for (const error of errors) log({ requestId: call.requestId, ...error.diagnosis });
}

/** The client's text is kept only while an attempt may still need it (json-source.ts). */
function releaseSources(legs: Leg[]): void {
  for (const leg of legs) {
    for (const attempt of leg.attempts.values()) releaseSource(attempt?.source);
  }
}

/** Failures after which the next attempt waits a little: the upstream may be overloaded. */
const backoffAfter: ReadonlySet<FailureClass> = new Set(['server', 'timeout', 'connection']);

/** Full jitter: a random wait up to `ceilingMs`, cut short when the client goes away. */
function waitJittered(ceilingMs: number, signal: AbortHandle): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.random() * ceilingMs);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A failure that is the gateway's own (its key refused or out of credit, its deployment timing
 * out) is never shown as the client's 4xx.
 */
function gatewayFault(error: ApiError, failure: FailureClass): ApiError {
  if (error.status >= 500 || error.status === 429) return error;
  if (failure === 'client' || failure === 'context') return error;
  const message =
    failure === 'quota'
      ? 'The upstream account behind this model is out of credit or quota.'
      : failure === 'refused'
        ? "The upstream refused the gateway's credentials."
        : 'The upstream failed.';
  return new ApiError('upstream_error', message, {
    ...(error.diagnosis !== undefined ? { diagnosis: error.diagnosis } : {}),
  });
}

/**
 * What the client sees when no target is usable before any call: 429 while keys cool down, 503
 * while circuits are open or keys are out of rotation, with how long to wait.
 */
function refuseBlocked(blocked: Blocked | undefined, model: string, now: number): ApiError {
  if (blocked === undefined) return new ApiError('upstream_unavailable');
  const retryAfter = Math.max(1, Math.ceil((blocked.until - now) / 1000));
  const { target } = blocked;
  const why = {
    cooldown: 'is cooling down after a 429',
    budget: "has spent its key's budget for this minute",
    circuit: 'has its circuit open after failing',
    disabled: `has its key out of rotation (${blocked.disabled ?? 'refused'})`,
  }[blocked.reason];
  const options = {
    ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
    // The operator's line: no upstream was called, and this is why.
    diagnosis: {
      provider: target.deployment.providerId,
      deployment: target.deployment.label,
      keyId: target.key.id,
      cause: `No target of the model "${model}" is usable: the first to come back, ${target.id}, ${why} until ${new Date(blocked.until).toISOString()}.`,
    },
  };
  return blocked.reason === 'cooldown' || blocked.reason === 'budget'
    ? new ApiError('upstream_rate_limited', undefined, options)
    : new ApiError('upstream_unavailable', undefined, options);
}

/** The attempt's target and outcome added to its failure's diagnosis (never the key itself). */
function describeAttempt(
  error: ApiError,
  target: RoutingTarget,
  attempt: { attempt: number; failure: FailureClass; retryAfterMs: number | undefined },
): ApiError {
  return new ApiError(error.code, error.message, {
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    status: error.status,
    diagnosis: {
      ...error.diagnosis,
      provider: target.deployment.providerId,
      deployment: target.deployment.label,
      keyId: target.key.id,
      attempt: attempt.attempt,
      failure: attempt.failure,
      ...(attempt.retryAfterMs !== undefined
        ? { retryAfterMs: Math.round(attempt.retryAfterMs) }
        : {}),
    },
  });
}

/**
 * The failures of one request's attempts, for the one the client is shown: a 429 with the
 * earliest retry-after when any target was rate limited (retrying soon may work), else the last.
 */
class FailureSummary {
  #rateLimited: { error: ApiError; retryAfterMs: number } | undefined;
  #last: ApiError | undefined;
  #all: ApiError[] | undefined;
  /** What the router waits when an upstream's 429 names no wait (routing.cooldownSeconds). */
  readonly #cooldownMs: number;

  constructor(cooldownMs: number) {
    this.#cooldownMs = cooldownMs;
  }

  add(failure: FailureClass, error: ApiError, retryAfterMs: number | undefined): void {
    this.#last = error;
    (this.#all ??= []).push(error);
    if (failure !== 'rate_limited') return;
    const wait = retryAfterMs ?? this.#cooldownMs;
    if (this.#rateLimited === undefined || wait < this.#rateLimited.retryAfterMs)
      this.#rateLimited = { error, retryAfterMs: wait };
  }

  worst(): ApiError | undefined {
    const limited = this.#rateLimited;
    if (limited === undefined) return this.#last;
    const { error, retryAfterMs } = limited;
    // docs/decisions/0146: the wait the router keeps that target out for, when the upstream's
    // `retry-after` did not say it (only `retry-after-ms`, a counter's reset, or nothing).
    if (error.retryAfter !== undefined) return error;
    const shown = new ApiError(error.code, error.message, {
      retryAfter: retryAfterMs / 1000,
      status: error.status,
      ...(error.details !== undefined ? { details: error.details } : {}),
      ...(error.diagnosis !== undefined ? { diagnosis: error.diagnosis } : {}),
    });
    // The same failure, told with its wait: it stays one failure for `others`.
    if (this.#all !== undefined) this.#all[this.#all.indexOf(error)] = shown;
    this.#rateLimited = { error: shown, retryAfterMs };
    return shown;
  }

  /** Every failure but `shown`, in the order they happened. */
  others(shown: ApiError | undefined): readonly ApiError[] {
    return this.#all === undefined ? [] : this.#all.filter((error) => error !== shown);
  }
}
