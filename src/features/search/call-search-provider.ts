import type { ApiError } from '../../canonical/generation-error.ts';
import type { SearchProviderConfig } from '../../config/search-config-schema.ts';
import { exchangeWithUpstream, unreadable } from '../../providers/shared/exchange-with-upstream.ts';
import { upstreamOrigin } from '../../providers/shared/map-upstream-failure.ts';
import type { UpstreamPools } from '../../providers/shared/upstream-pool.ts';
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
  const exchange = await exchangeWithUpstream({
    pools: input.pools,
    target: provider,
    request: {
      method: call.method,
      path: call.path,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      // A search runs to its end even when its client leaves, so a retry under the same
      // x-request-id replays it instead of paying again.
      signal: new AbortHandle(),
    },
    name: `search provider ${provider.id}`,
    // The query string carries the client's search, which is not the operator's log's business.
    origin: upstreamOrigin(provider.id, provider, call.path.split('?')[0] ?? '', input.apiKey),
    answerBytesLimit: ANSWER_BYTES_LIMIT,
    now: input.now,
  });
  if (!exchange.ok) return exchange;
  const { text } = exchange;
  let body: unknown;
  try {
    body = parseUntrustedJson(text);
  } catch {
    return notAnswer(provider, 'is not JSON');
  }
  const results = adapter.readResults(body, parameters);
  if (results === undefined) return notAnswer(provider, 'is not a search answer');
  return { ok: true, results };
}

function notAnswer(provider: SearchProviderConfig, why: string): ProviderOutcome {
  return unreadable(`The answer of the search provider ${provider.id} ${why}.`);
}
