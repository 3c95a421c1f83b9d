import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Authenticator } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { requireToken } from '../../http/require-token.ts';
import { fingerprintRequest } from '../../idempotency/fingerprint-request.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import {
  searchHeadersSchema,
  searchLimits,
  searchRequestSchema,
  searchResponseSchema,
} from './search-schema.ts';
import type { SearchService } from './search-service.ts';
import type { SearchParameters } from './search-types.ts';

export interface SearchRouteDependencies {
  authenticator: Authenticator;
  search: SearchService;
  idempotency: IdempotencyService;
  operation: IdempotentOperation;
}

declare module 'fastify' {
  interface FastifyRequest {
    searchKey?: string;
  }
}

/** spec §4.8: the optional x-request-id is checked before the body is read, and named. */
function readSearchKey(request: FastifyRequest): string | undefined {
  const value = request.headers['x-request-id'];
  if (value === undefined) return undefined;
  const { min, max, pattern } = searchLimits.requestId;
  if (
    typeof value !== 'string' ||
    value.length < min ||
    value.length > max ||
    !pattern.test(value)
  ) {
    throw new ApiError(
      'invalid_header',
      `Invalid header x-request-id: ${min} to ${max} characters of letters, digits and . _ : -`,
      { details: { param: 'x-request-id' } },
    );
  }
  return value;
}

/** The body with the defaults of spec §2.7 filled in (validation never rewrites bodies). */
function readParameters(body: Partial<SearchParameters> & { query: string }): SearchParameters {
  return {
    query: body.query,
    effort: body.effort ?? 'basic',
    max_results: body.max_results ?? searchLimits.maxResults.default,
  };
}

/** POST /v1/search (spec §4.8, operationId searchWeb). */
export async function searchRoutes(
  app: FastifyInstance,
  dependencies: SearchRouteDependencies,
): Promise<void> {
  const { search, idempotency, operation } = dependencies;
  const authenticate = requireToken(dependencies.authenticator, 'search:create');

  app.post(
    '/v1/search',
    {
      onRequest: [
        authenticate,
        async (request: FastifyRequest) => {
          const key = readSearchKey(request);
          if (key !== undefined) request.searchKey = key;
        },
      ],
      schema: {
        operationId: 'searchWeb',
        headers: searchHeadersSchema,
        body: searchRequestSchema,
        response: { 200: searchResponseSchema },
      },
      // The answer is sent as stored, so a replay is the same bytes.
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal as NonNullable<FastifyRequest['principal']>;
      const parameters = readParameters(request.body as SearchParameters);
      const work = async () => {
        const answer = await search.search({ parameters, principal, requestId: request.id });
        // The request's completion log line says what the search came to, as a generation's does.
        request.log.setBindings?.({
          model: 'search',
          provider: answer.provider,
          outcome: 'ok',
          costMicroCredits: Math.round(answer.usage.credits * microPerCredit),
        });
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(answer),
        };
      };
      const key = request.searchKey;
      if (key === undefined) {
        const answer = await work();
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
      // Defaults are filled first, so `{query}` and `{query, max_results: 8}` are one request.
      const fingerprint = fingerprintRequest({
        operation: operation.name,
        headers: {},
        body: parameters,
      });
      const { answer, replayed } = await idempotency.run(
        { accountId: principal.account.id, operation, key, fingerprint },
        work,
      );
      reply.headers(answer.headers);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(answer.status).send(answer.body);
    },
  );
}
