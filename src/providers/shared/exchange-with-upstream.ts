import { ApiError } from '../../canonical/generation-error.ts';
import { mapUpstreamStatus, type UpstreamOrigin } from './map-upstream-failure.ts';
import { readBodyAtMost } from './read-body-at-most.ts';
import {
  isTimeout,
  isTransportFailure,
  type UpstreamPools,
  type UpstreamRequest,
  type UpstreamTarget,
} from './upstream-pool.ts';

/**
 * One try of a JSON call to one upstream of a priced feature (a search provider, a transcription
 * deployment): the answer's text, or why it failed and whether the next upstream may be tried
 * (5xx, timeout, connect failure, an unreadable answer). An upstream 429 keeps its retry-after
 * and stops there, since the client is told when to come back (docs/api.md).
 */
export type UpstreamExchange =
  { ok: true; text: string } | { ok: false; error: ApiError; next: boolean };

/**
 * Sends `request` and reads at most `answerBytesLimit` of the answer; never throws for upstream
 * failures. `name` says who answered in the errors: "search provider tavily-0" gives "The search
 * provider tavily-0 did not answer in time." and "The answer of the search provider tavily-0 is
 * too large."
 */
export async function exchangeWithUpstream(input: {
  pools: UpstreamPools;
  target: UpstreamTarget;
  request: UpstreamRequest;
  name: string;
  answerBytesLimit: number;
  now(): number;
  /** Which provider answered, for the operator's log of a failure. */
  origin?: UpstreamOrigin;
}): Promise<UpstreamExchange> {
  let response;
  try {
    response = await input.pools.send(input.target, input.request);
  } catch (error) {
    if (!isTransportFailure(error)) throw error;
    const what = isTimeout(error) ? 'did not answer in time' : 'could not be reached';
    return unreadable(`The ${input.name} ${what}.`);
  }
  let text: string | undefined;
  try {
    text = await readBodyAtMost(response.body, input.answerBytesLimit);
  } catch (error) {
    if (!isTransportFailure(error)) throw error;
    return unreadable(`The answer of the ${input.name} broke off.`);
  }
  if (text === undefined) return unreadable(`The answer of the ${input.name} is too large.`);
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const mapped = mapUpstreamStatus(
      response.statusCode,
      response.headers,
      text,
      input.now(),
      input.origin,
    );
    return {
      ok: false,
      error: mapped.error,
      next: mapped.retryable && response.statusCode !== 429,
    };
  }
  return { ok: true, text };
}

/** An upstream that gave no usable answer: the next one may. */
export function unreadable(message: string): { ok: false; error: ApiError; next: true } {
  return { ok: false, error: new ApiError('upstream_error', message), next: true };
}
