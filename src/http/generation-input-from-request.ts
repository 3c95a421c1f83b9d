import type { FastifyReply, FastifyRequest } from 'fastify';

import type { GenerationInput } from '../generation/generation-service.ts';
import { bindCompletionFields, completionLogFields } from './completion-log-fields.ts';
import { AbortHandle } from '../shared/abort-handle.ts';
import type { SurfaceCodec } from '../surfaces/surface-codec.ts';

/** Aborts the upstream call when the client disconnects before the answer is complete. */
function clientGoneSignal(request: FastifyRequest, reply: FastifyReply): AbortHandle {
  const controller = new AbortHandle();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.on('aborted', () => controller.abort());
  return controller;
}

/** The generation input of an authenticated HTTP request (its onRequest hook set the principal). */
export function generationInputFromRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  surface: SurfaceCodec,
): GenerationInput {
  return {
    surface,
    body: request.body as Record<string, unknown>,
    bodyBytes:
      Number(request.headers['content-length'] ?? 0) || JSON.stringify(request.body).length,
    principal: request.principal as NonNullable<FastifyRequest['principal']>,
    headers: request.headers,
    requestId: request.id,
    signal: clientGoneSignal(request, reply),
    // Fastify's "request completed" line then names the model, tokens and cost beside the
    // status, duration and request id (pino child loggers take bindings after creation).
    onSettled: (summary) => bindCompletionFields(request, completionLogFields(summary)),
  };
}
