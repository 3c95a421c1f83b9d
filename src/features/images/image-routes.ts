import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Authenticator } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import { bindCompletionFields } from '../../http/completion-log-fields.ts';
import { readKeyHeader } from '../../http/read-key-header.ts';
import { requireToken } from '../../http/require-token.ts';
import {
  imageGenerationSchema,
  imageHeadersSchema,
  imageJobParamsSchema,
  imageJobQuerySchema,
  imageLimits,
  imageModelsQuerySchema,
  imageModelsSchema,
  imageRequestSchema,
} from './image-schema.ts';
import type { ImageService } from './image-service.ts';
import type { ImageGenerationRequest } from './image-types.ts';
import { paymentRequiredResponse } from '../../wire/payment-required-schema.ts';

export interface ImageRouteDependencies {
  authenticator: Authenticator;
  images: ImageService;
  /** Largest body: eight input images of the configured size, base64, plus the rest. */
  bodyLimitBytes: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    imageKey?: string;
  }
}

/**
 * Three image routes (create, poll, models; docs/images.md); each handler calls the ImageService.
 * The fourth, sources, answers without the service (image-sources-routes.ts).
 */
export async function imageRoutes(
  app: FastifyInstance,
  dependencies: ImageRouteDependencies,
): Promise<void> {
  const { images } = dependencies;
  const authenticate = requireToken(dependencies.authenticator, 'image:create');
  const principalOf = (request: FastifyRequest) =>
    request.principal as NonNullable<FastifyRequest['principal']>;

  app.post(
    '/v1/images/generations',
    {
      onRequest: [
        authenticate,
        async (request: FastifyRequest) => {
          request.imageKey = readKeyHeader(request, 'Idempotency-Key', imageLimits.key, {
            required: true,
          });
        },
      ],
      bodyLimit: dependencies.bodyLimitBytes,
      schema: {
        operationId: 'createImageGeneration',
        headers: imageHeadersSchema,
        body: imageRequestSchema,
        response: {
          200: imageGenerationSchema,
          202: imageGenerationSchema,
          ...paymentRequiredResponse('A'),
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const outcome = await images.create(
        principalOf(request),
        request.body as ImageGenerationRequest,
        request.imageKey as string,
      );
      if (outcome.replayed) reply.header('idempotent-replayed', 'true');
      // The completion log line names the job and, once it finished, what it was charged.
      const { generation } = outcome;
      bindCompletionFields(request, {
        model: generation.model,
        jobId: generation.id,
        jobStatus: generation.status,
        ...(generation.usage === undefined || outcome.replayed
          ? {}
          : { costMicroCredits: Math.round(generation.usage.credits * microPerCredit) }),
      });
      return reply.code(outcome.status).send(generation);
    },
  );

  app.get(
    '/v1/images/generations/:job_id',
    {
      onRequest: authenticate,
      schema: {
        operationId: 'getImageGeneration',
        params: imageJobParamsSchema,
        querystring: imageJobQuerySchema,
        response: { 200: imageGenerationSchema, 202: imageGenerationSchema },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { job_id: jobId } = request.params as { job_id: string };
      const query = request.query as { include_base64?: 'true' | 'false' };
      const generation = await images.get(principalOf(request), jobId, {
        includeBase64: query.include_base64 === 'true',
      });
      // docs/images.md: clients poll while the answer is 202, so an unfinished job answers 202 as
      // the create call does, and a finished one (succeeded or failed) 200.
      const unfinished = generation.status === 'queued' || generation.status === 'running';
      return reply.code(unfinished ? 202 : 200).send(generation);
    },
  );

  app.get(
    '/v1/images/models',
    {
      onRequest: authenticate,
      schema: {
        operationId: 'listImageModels',
        querystring: imageModelsQuerySchema,
        response: { 200: imageModelsSchema },
      },
    },
    async (request: FastifyRequest) => ({
      object: 'list',
      data: images.models(principalOf(request)),
    }),
  );
}
