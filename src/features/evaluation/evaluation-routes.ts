import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';

import type { Authenticator } from '../../auth/authenticator.ts';
import { formatCredits } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { readKeyHeader } from '../../http/read-key-header.ts';
import { requireToken } from '../../http/require-token.ts';
import { fingerprintRequest } from '../../idempotency/fingerprint-request.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import {
  evaluationHeadersSchema,
  evaluationLimits,
  evaluationRequestSchema,
  evaluationResponseSchema,
} from './evaluation-schema.ts';
import type { EvaluationService } from './evaluation-service.ts';
import type { EvaluationRequest } from './evaluation-types.ts';
import { chargeAnswerHeaders } from '../../wire/charge-headers-schema.ts';

export interface EvaluationRouteDependencies {
  authenticator: Authenticator;
  evaluation: EvaluationService;
  idempotency: IdempotencyService;
  /** The single supported `ai-model-id` (docs/evaluation.md). */
  modelId: string;
  operation: IdempotentOperation;
}

/** The headers that make two evaluation requests different, besides the body. */
interface EvaluationHeaders {
  key: string;
  modelId: string;
  version: string;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** docs/evaluation.md: each header is checked before the body is read, and a bad one is named. */
function readEvaluationHeaders(request: FastifyRequest, modelId: string): EvaluationHeaders {
  const bad = (header: string, rule: string) =>
    new ApiError('invalid_header', `Invalid header ${header}: ${rule}.`, {
      details: { param: header },
    });
  const key = readKeyHeader(request, 'Idempotency-Key', evaluationLimits.key, { required: true });
  const model = headerValue(request, 'ai-model-id');
  if (model !== modelId) throw bad('ai-model-id', `must be "${modelId}"`);
  const version = headerValue(request, 'ai-evaluation-model-specification-version');
  if (version !== evaluationLimits.specificationVersion) {
    throw bad(
      'ai-evaluation-model-specification-version',
      `must be "${evaluationLimits.specificationVersion}"`,
    );
  }
  return { key, modelId: model, version };
}

declare module 'fastify' {
  interface FastifyRequest {
    evaluationHeaders?: EvaluationHeaders;
  }
}

/** POST /v4/ai/evaluation-model (operationId createEvaluation, docs/evaluation.md). */
export async function evaluationRoutes(
  app: FastifyInstance,
  dependencies: EvaluationRouteDependencies,
): Promise<void> {
  const { evaluation, idempotency, modelId, operation } = dependencies;
  const authenticate = requireToken(dependencies.authenticator, 'inference:create');

  app.post(
    '/v4/ai/evaluation-model',
    {
      // Credential, then headers, before the body is read; the size is judged on the bytes
      // before parsing (docs/evaluation.md: 512 KiB → 413).
      onRequest: [
        authenticate,
        async (request: FastifyRequest) => {
          request.evaluationHeaders = readEvaluationHeaders(request, modelId);
        },
      ],
      bodyLimit: evaluationLimits.bodyBytes,
      schema: {
        operationId: 'createEvaluation',
        headers: evaluationHeadersSchema(modelId),
        body: evaluationRequestSchema,
        response: { 200: { ...evaluationResponseSchema, headers: chargeAnswerHeaders } as TSchema },
      },
      // The answer is sent as stored, so a replay is the same bytes.
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal as NonNullable<FastifyRequest['principal']>;
      const headers = request.evaluationHeaders as EvaluationHeaders;
      const body = request.body as EvaluationRequest;
      const fingerprint = fingerprintRequest({
        operation: operation.name,
        headers: {
          'ai-model-id': headers.modelId,
          'ai-evaluation-model-specification-version': headers.version,
        },
        body,
      });
      let charge: { costMicroCredits: number; balance: string | undefined } | undefined;
      const { answer, replayed } = await idempotency.run(
        { accountId: principal.account.id, operation, key: headers.key, fingerprint },
        async () => {
          const response = await evaluation.evaluate({
            request: body,
            principal,
            requestId: request.id,
            onCharged: (told) => {
              charge = told;
            },
          });
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(response),
          };
        },
      );
      reply.headers(answer.headers);
      if (replayed) reply.header('idempotent-replayed', 'true');
      // Told of this call only, never stored with the answer: a replay is charged nothing.
      if (charge !== undefined && !replayed) {
        reply.header('x-switchyard-cost', formatCredits(charge.costMicroCredits));
        if (charge.balance !== undefined) reply.header('x-switchyard-balance', charge.balance);
      }
      return reply.code(answer.status).send(answer.body);
    },
  );
}
