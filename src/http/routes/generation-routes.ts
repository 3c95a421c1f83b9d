import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { CountTokensService } from '../../generation/count-tokens-service.ts';
import type { GenerationService } from '../../generation/generation-service.ts';
import type { SurfaceCodec } from '../../surfaces/surface-codec.ts';
import { paymentRequiredResponse } from '../../wire/payment-required-schema.ts';
import { chargeAnswerHeaders } from '../../wire/charge-headers-schema.ts';
import { rateLimitAnswerHeaders, rateLimitedResponse } from '../../wire/rate-limited-schema.ts';
import { errorShapeForUrl } from '../error-shape.ts';
import type { HttpMetrics } from '../http-metrics.ts';
import { generationInputFromRequest } from '../generation-input-from-request.ts';
import { requireToken } from '../require-token.ts';
import { sendEventStream } from '../send-event-stream.ts';

/**
 * The gateway's own headers on a 200 answer, for the OpenAPI document: @fastify/swagger lists a
 * response schema's `headers` as the response's headers.
 */
const generationAnswerHeaders = {
  'x-switchyard-output-limit': {
    type: 'integer',
    minimum: 1,
    description:
      'The output limit the call was sent with, when it was lowered to what the balance affords (docs/decisions/0100).',
  },
  'x-switchyard-deployment': {
    type: 'string',
    description:
      'The deployment that answered (provider id and upstream model, never a key) and the upstream calls the request took: `openai/gpt-4.1; attempts=2` (docs/routing.md).',
  },
  'x-switchyard-model': {
    type: 'string',
    description:
      'The model that answered: the one asked for, or one of its configured fallbacks (docs/routing.md).',
  },
  'x-switchyard-ignored-fields': {
    type: 'string',
    description:
      "Comma-separated request fields the model's ignoreFields let the gateway drop on this route (docs/decisions/0011).",
  },
  ...chargeAnswerHeaders,
  ...rateLimitAnswerHeaders,
};

export interface GenerationRouteDependencies {
  authenticator: Authenticator;
  generation: GenerationService;
  countTokens: CountTokensService;
  /** Counts a request whose client left mid-answer, which Fastify's hooks never see. */
  metrics?: HttpMetrics;
  surfaces: { messages: SurfaceCodec; responses: SurfaceCodec; chat: SurfaceCodec };
  schemas: {
    messagesRequest: TSchema;
    messageResponse: TSchema;
    countTokensRequest: TSchema;
    countTokensResponse: TSchema;
    responsesRequest: TSchema;
    responseObject: TSchema;
    chatRequest: TSchema;
    chatResponse: TSchema;
  };
}

/** POST /v1/messages, /v1/responses (+ /responses), /v1/chat/completions (+ /chat/completions). */
export async function generationRoutes(
  app: FastifyInstance,
  dependencies: GenerationRouteDependencies,
): Promise<void> {
  const { authenticator, generation, surfaces, schemas } = dependencies;
  const inference = requireToken(authenticator, 'inference:create');

  const handler =
    (surface: SurfaceCodec) => async (request: FastifyRequest, reply: FastifyReply) => {
      const reply_ = await generation.generate(
        generationInputFromRequest(request, reply, surface, dependencies.metrics),
      );
      reply.headers(reply_.headers);
      if (reply_.kind === 'json') return reply.code(200).send(reply_.body);
      sendEventStream(reply.code(200), reply_.events);
      return reply;
    };

  const route = (
    url: string,
    surface: SurfaceCodec,
    operationId: string | undefined,
    body: TSchema,
    response: TSchema,
  ) =>
    app.post(
      url,
      {
        onRequest: inference,
        schema: {
          ...(operationId === undefined ? { hide: true } : { operationId }),
          body,
          response: {
            200: { ...response, headers: generationAnswerHeaders } as TSchema,
            ...paymentRequiredResponse(errorShapeForUrl(url)),
            ...rateLimitedResponse(errorShapeForUrl(url)),
          },
        },
        // Bodies are validated on the way in; answers are relayed as produced, not re-serialised.
        serializerCompiler: () => (data) =>
          typeof data === 'string' ? data : JSON.stringify(data),
      },
      handler(surface),
    );

  route(
    '/v1/messages',
    surfaces.messages,
    'createMessage',
    schemas.messagesRequest,
    schemas.messageResponse,
  );
  route(
    '/v1/responses',
    surfaces.responses,
    'createResponse',
    schemas.responsesRequest,
    schemas.responseObject,
  );
  route(
    '/responses',
    surfaces.responses,
    undefined,
    schemas.responsesRequest,
    schemas.responseObject,
  );
  route(
    '/v1/chat/completions',
    surfaces.chat,
    'createChatCompletion',
    schemas.chatRequest,
    schemas.chatResponse,
  );
  route('/chat/completions', surfaces.chat, undefined, schemas.chatRequest, schemas.chatResponse);

  app.post(
    '/v1/messages/count_tokens',
    {
      onRequest: requireToken(authenticator, 'inference:inspect'),
      schema: {
        operationId: 'countMessageTokens',
        body: schemas.countTokensRequest,
        response: { 200: schemas.countTokensResponse },
      },
    },
    async (request, reply) => {
      const counted = await dependencies.countTokens.count({
        body: request.body as Record<string, unknown>,
        principal: request.principal as NonNullable<FastifyRequest['principal']>,
        headers: request.headers,
      });
      // Says what counted: the upstream, its tokenize route or a local tokenizer (decisions/0031).
      void reply.header('x-switchyard-token-count-source', counted.source);
      return { input_tokens: counted.input_tokens };
    },
  );
}
