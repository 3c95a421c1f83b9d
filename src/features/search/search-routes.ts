import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Authenticator } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import { bindCompletionFields } from '../../http/completion-log-fields.ts';
import { readKeyHeader } from '../../http/read-key-header.ts';
import { requireToken } from '../../http/require-token.ts';
import {
  searchHeadersSchema,
  searchLimits,
  searchRequestSchema,
  searchResponseSchema,
} from './search-schema.ts';
import { readSearchParameters, runSearch, type SearchRunner } from './run-search.ts';
import type { SearchParameters } from './search-types.ts';
import { paymentRequiredResponse } from '../../wire/payment-required-schema.ts';

export interface SearchRouteDependencies {
  authenticator: Authenticator;
  runner: SearchRunner;
}

declare module 'fastify' {
  interface FastifyRequest {
    searchKey?: string;
  }
}

/** POST /v1/search (operationId searchWeb, docs/search.md). */
export async function searchRoutes(
  app: FastifyInstance,
  dependencies: SearchRouteDependencies,
): Promise<void> {
  const { runner } = dependencies;
  const authenticate = requireToken(dependencies.authenticator, 'search:create');

  app.post(
    '/v1/search',
    {
      onRequest: [
        authenticate,
        async (request: FastifyRequest) => {
          const key = readKeyHeader(request, 'x-request-id', searchLimits.requestId, {
            required: false,
          });
          if (key !== undefined) request.searchKey = key;
        },
      ],
      schema: {
        operationId: 'searchWeb',
        headers: searchHeadersSchema,
        body: searchRequestSchema,
        response: { 200: searchResponseSchema, ...paymentRequiredResponse('A') },
      },
      // The answer is sent as stored, so a replay is the same bytes.
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal as NonNullable<FastifyRequest['principal']>;
      const run = await runSearch(runner, {
        parameters: readSearchParameters(request.body as SearchParameters),
        principal,
        requestId: request.id,
        key: request.searchKey,
        // The request's completion log line says what the search came to, as a generation's does.
        onAnswer: (answer) =>
          bindCompletionFields(request, {
            model: 'search',
            provider: answer.provider,
            outcome: 'ok',
            costMicroCredits: Math.round(answer.usage.credits * microPerCredit),
          }),
      });
      reply.header('content-type', 'application/json');
      if (run.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(200).send(run.body);
    },
  );
}
