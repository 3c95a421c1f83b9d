import type { FastifyReply } from 'fastify';
import {
  renderErrorBody,
  type ErrorShape,
  type GenerationError,
} from '../canonical/generation-error.ts';

export function sendError(
  reply: FastifyReply,
  error: GenerationError,
  shape: ErrorShape,
): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  // Refused before its body arrived (onRequest, a limit): closing the connection spares reading
  // a body nobody will use, up to bodyLimit bytes, instead of draining it.
  if (!reply.request.raw.complete) reply.header('connection', 'close');
  return reply.code(error.status).type('application/json').send(renderErrorBody(error, shape));
}
