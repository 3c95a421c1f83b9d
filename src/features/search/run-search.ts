import type { Principal } from '../../auth/authenticator.ts';
import { fingerprintRequest } from '../../idempotency/fingerprint-request.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import { searchLimits } from './search-schema.ts';
import type { SearchService } from './search-service.ts';
import type { SearchAnswer, SearchParameters } from './search-types.ts';

export interface SearchRunner {
  search: SearchService;
  idempotency: IdempotencyService;
  operation: IdempotentOperation;
}

export interface SearchRun {
  /** The answer as JSON text: what was stored, so a replay is the same bytes. */
  body: string;
  replayed: boolean;
}

/** The request with its defaults (docs/search.md) filled in; validation never rewrites bodies. */
export function readSearchParameters(
  fields: Partial<SearchParameters> & { query: string },
): SearchParameters {
  return {
    query: fields.query,
    effort: fields.effort ?? 'basic',
    max_results: fields.max_results ?? searchLimits.maxResults.default,
  };
}

/**
 * One search, under its request id when one was given (docs/decisions/0060): POST /v1/search and
 * the MCP `search` tool both come here, so an id means the same thing on either and a replay
 * of one is a replay of the other.
 */
export async function runSearch(
  runner: SearchRunner,
  input: {
    parameters: SearchParameters;
    principal: Principal;
    requestId: string;
    key?: string | undefined;
    /** Told of a fresh answer (not of a replay), e.g. for the request's completion log line. */
    onAnswer?(answer: SearchAnswer): void;
  },
): Promise<SearchRun> {
  const { parameters, principal, requestId, key } = input;
  const work = async () => {
    const answer = await runner.search.search({ parameters, principal, requestId });
    input.onAnswer?.(answer);
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(answer),
    };
  };
  if (key === undefined) return { body: (await work()).body, replayed: false };
  // Defaults are filled first, so `{query}` and `{query, max_results: 8}` are one request.
  const fingerprint = fingerprintRequest({
    operation: runner.operation.name,
    headers: {},
    body: parameters,
  });
  const { answer, replayed } = await runner.idempotency.run(
    { accountId: principal.account.id, operation: runner.operation, key, fingerprint },
    work,
  );
  return { body: answer.body, replayed };
}
