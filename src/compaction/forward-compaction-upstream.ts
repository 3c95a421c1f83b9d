import type { Principal } from '../auth/authenticator.ts';
import type { CatalogModel, Deployment } from '../catalog/model-catalog.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { Usage } from '../canonical/usage.ts';
import {
  BillingSession,
  type BillingDependencies,
  type SessionStart,
} from '../generation/billing-session.ts';
import { byteBound, measurePrompt } from '../generation/measure-prompt.ts';
import { buildUpstreamHeaders } from '../generation/upstream-headers.ts';
import { decodeOpenAIResponsesUsage } from '../providers/openai-responses/decode-openai-responses-usage.ts';
import { openAIResponsesProvider } from '../providers/openai-responses/openai-responses-provider.ts';
import { mapUpstreamStatus, upstreamOrigin } from '../providers/shared/map-upstream-failure.ts';
import { isTransportFailure, type UpstreamPools } from '../providers/shared/upstream-pool.ts';
import { AbortHandle, type AbortSource } from '../shared/abort-handle.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';

export interface ForwardDependencies {
  pools: UpstreamPools;
  billing: BillingDependencies;
  providerKey(providerId: string): string | undefined;
  now(): number;
}

type Headers = Record<string, string | string[] | undefined>;

export interface ForwardRequest {
  model: CatalogModel;
  /** The model's deployments that forward compaction, in order (fallback before any byte). */
  deployments: Deployment[];
  /** The compact body; `model` is replaced per deployment. */
  body: Record<string, unknown>;
  principal: Principal;
  requestId: string;
  headers: Headers;
  signal: AbortSource;
}

export interface ForwardedCompaction {
  deployment: Deployment;
  /** The upstream's compaction object as it answered. */
  object: Record<string, unknown>;
  usage: Usage | undefined;
}

/** The OpenAI API's compaction endpoint beside its generation endpoint. */
export const upstreamCompactPath = `${openAIResponsesProvider.path}/compact`;

const isJson = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Compaction by an upstream that implements `/v1/responses/compact` (docs/decisions/0013), paid
 * like any call (docs/architecture.md): admitted by the rate limiter, the worst case held, the
 * upstream's usage settled and recorded; a failed call costs nothing. The next deployment is tried
 * on the failures that allow it, as the generation pipeline does.
 */
export async function forwardCompactionUpstream(
  dependencies: ForwardDependencies,
  request: ForwardRequest,
): Promise<ForwardedCompaction> {
  const { model } = request;
  const start: SessionStart = {
    requestId: request.requestId,
    principal: request.principal,
    model,
    surface: 'responses',
    promptTokens: measurePrompt(request.body, byteBound, model.contextWindow),
    // The upstream decides how long its compaction is; hold for the longest answer.
    maxOutputTokens: model.maxOutputTokens,
  };
  let session: BillingSession;
  try {
    session = await BillingSession.open(dependencies.billing, start);
  } catch (error) {
    if (error instanceof ApiError) {
      await BillingSession.recordRefusal(dependencies.billing, start, error.status);
    }
    throw error;
  }
  const upstreamAbort = new AbortHandle();
  const onClientGone = () => upstreamAbort.abort();
  request.signal.addEventListener('abort', onClientGone, { once: true });
  try {
    const answered = await sendWithFallback(dependencies, request, upstreamAbort);
    const usage = decodeOpenAIResponsesUsage(answered.object.usage);
    await session.end({ usage, deployment: answered.deployment.label, outcome: 'ok', status: 200 });
    return { ...answered, usage };
  } catch (error) {
    await session.end({
      usage: undefined,
      deployment: null,
      outcome: request.signal.aborted ? 'cancelled' : 'upstream_error',
      status: error instanceof ApiError ? error.status : 500,
    });
    throw error;
  } finally {
    request.signal.removeEventListener('abort', onClientGone);
  }
}

async function sendWithFallback(
  dependencies: ForwardDependencies,
  request: ForwardRequest,
  signal: AbortHandle,
): Promise<{ deployment: Deployment; object: Record<string, unknown> }> {
  const { pools, providerKey, now } = dependencies;
  let lastError = new ApiError('upstream_error');
  let rateLimited: ApiError | undefined;
  for (const deployment of request.deployments) {
    const { provider, providerId } = deployment;
    let text: string;
    let status: number;
    let headers: Headers;
    try {
      const response = await pools.send(provider, {
        path: upstreamCompactPath,
        headers: buildUpstreamHeaders(provider, providerKey(providerId), request.headers, {
          sameDialect: true,
          stream: false,
        }),
        body: JSON.stringify({ ...request.body, model: deployment.upstreamModel }),
        signal,
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      if (signal.aborted) {
        throw new ApiError('upstream_error', 'The client went away.', { status: 499 });
      }
      if (!isTransportFailure(error)) throw error;
      lastError = new ApiError(
        'upstream_error',
        `The upstream could not be reached or read: ${(error as Error).message}`,
      );
      continue;
    }
    if (status < 400) {
      let object: unknown;
      try {
        object = parseUntrustedJson(text);
      } catch {
        object = undefined;
      }
      if (!isJson(object)) {
        throw new ApiError('upstream_error', 'The upstream compaction answer could not be read.');
      }
      return { deployment, object };
    }
    const origin = upstreamOrigin(
      providerId,
      provider,
      upstreamCompactPath,
      providerKey(providerId),
    );
    const failure = mapUpstreamStatus(status, headers, text, now(), origin);
    if (failure.error.code === 'upstream_rate_limited') rateLimited = failure.error;
    lastError = failure.error;
    if (!failure.retryable) throw failure.error;
  }
  // An upstream 429 keeps its status and retry-after once every deployment was tried.
  throw rateLimited ?? lastError;
}
