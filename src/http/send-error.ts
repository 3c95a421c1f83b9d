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
  return reply.code(error.status).type('application/json').send(renderErrorBody(error, shape));
}
