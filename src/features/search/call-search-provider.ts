import { ApiError } from '../../canonical/generation-error.ts';
import type { SearchProviderConfig } from '../../config/search-config-schema.ts';
import { mapUpstreamStatus } from '../../providers/shared/map-upstream-failure.ts';
import { readBodyAtMost } from '../../providers/shared/read-body-at-most.ts';
import {
  isTimeout,
  isTransportFailure,
  type UpstreamPools,
} from '../../providers/shared/upstream-pool.ts';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import type { SearchAdapter, SearchParameters, SearchResult } from './search-types.ts';

/** What one provider's try came to. */
export type ProviderOutcome =
  | { ok: true; results: SearchResult[] }
  /** `next`: another provider may answer (5xx, timeout, connect failure, refused key). */
  | { ok: false; error: ApiError; next: boolean };

/** A search answer is a few kilobytes; more than this is not a search answer. */
const ANSWER_BYTES_LIMIT = 4 * 1024 * 1024;

/** Sends one search to one provider and reads its answer; never throws for upstream failures. */
export async function callSearchProvider(input: {
  pools: UpstreamPools;
  provider: SearchProviderConfig;
  adapter: SearchAdapter;
  parameters: SearchParameters;
  apiKey: string | undefined;
  now(): number;
}): Promise<ProviderOutcome> {
  const { provider, adapter, parameters } = input;
  const call = adapter.buildCall(parameters, input.apiKey);
  let response;
  try {
    response = await input.pools.send(provider, {
      method: call.method,
      path: call.path,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      // A search runs to its end even when its client leaves, so a retry under the same
      // x-request-id replays it instead of paying again.
      signal: new AbortHandle(),
    });
  } catch (error) {
    if (!isTransportFailure(error)) throw error;
    const what = isTimeout(error) ? 'did not answer in time' : 'could not be reached';
    return {
      ok: false,
      error: new ApiError('upstream_error', `The search provider ${provider.id} ${what}.`),
      next: true,
    };
  }
  let text: string | undefined;
  try {
    text = await readBodyAtMost(response.body, ANSWER_BYTES_LIMIT);
  } catch (error) {
    if (!isTransportFailure(error)) throw error;
    return unreadable(provider, 'broke off');
  }
  if (text === undefined) return unreadable(provider, 'is too large');
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const failure = mapUpstreamStatus(response.statusCode, response.headers, text, input.now());
    // spec §7: an upstream 429 stays a 429 with its retry-after; another provider is not tried,
    // as the client is told when to come back.
    return {
      ok: false,
      error: failure.error,
      next: failure.retryable && response.statusCode !== 429,
    };
  }
  let body: unknown;
  try {
    body = parseUntrustedJson(text);
  } catch {
    return unreadable(provider, 'is not JSON');
  }
  const results = adapter.readResults(body, parameters);
  if (results === undefined) return unreadable(provider, 'is not a search answer');
  return { ok: true, results };
}

function unreadable(provider: SearchProviderConfig, why: string): ProviderOutcome {
  return {
    ok: false,
    error: new ApiError(
      'upstream_error',
      `The answer of the search provider ${provider.id} ${why}.`,
    ),
    next: true,
  };
}
