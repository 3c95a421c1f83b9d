import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { CompactionService } from '../../compaction/compaction-service.ts';
import type { GenerationService } from '../../generation/generation-service.ts';
import type { ResponsesState } from '../../responses-state/responses-state.ts';
import type { SurfaceCodec } from '../../surfaces/surface-codec.ts';
import {
  responsesCompactionObjectSchema,
  responsesCompactRequestSchema,
} from '../../wire/responses/responses-compact-schema.ts';
import { generationInputFromRequest } from '../generation-input-from-request.ts';
import { requireToken } from '../require-token.ts';

export interface CompactionRouteDependencies {
  authenticator: Authenticator;
  compaction: CompactionService;
  /** Runs the gateway's own summary turn (docs/decisions/0013: billed like any call). */
  generation: GenerationService;
  responsesSurface: SurfaceCodec;
  /** Expands `previous_response_id` and item references before anything is compacted. */
  responsesState: Pick<ResponsesState, 'withHistory'>;
}

/**
 * POST /v1/responses/compact and /responses/compact (docs/decisions/0013): authentication and
 * surface checks as for /v1/responses. Not part of the machine description (docs/api.md), so
 * hidden.
 */
export async function compactionRoutes(
  app: FastifyInstance,
  dependencies: CompactionRouteDependencies,
): Promise<void> {
  const { authenticator, compaction, generation, responsesSurface, responsesState } = dependencies;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const input = generationInputFromRequest(request, reply, responsesSurface);
    const body = await responsesState.withHistory(input.body, input.principal.account.id);
    const answer = await compaction.compact({ ...input, body }, (next) =>
      generation.generate(next),
    );
    reply.headers(answer.headers);
    return reply.code(200).type('application/json').send(JSON.stringify(answer.body));
  };
  for (const url of ['/v1/responses/compact', '/responses/compact']) {
    app.post(
      url,
      {
        onRequest: requireToken(authenticator, 'inference:create'),
        schema: {
          hide: true,
          body: responsesCompactRequestSchema,
          response: { 200: responsesCompactionObjectSchema },
        },
        // Output items are relayed whole; a schema serializer would strip their fields.
        serializerCompiler: () => (data) =>
          typeof data === 'string' ? data : JSON.stringify(data),
      },
      handler,
    );
  }
}
