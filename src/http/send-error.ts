import type { FastifyReply } from 'fastify';
import {
  renderErrorBody,
  type ErrorShape,
  type GenerationError,
} from '../canonical/generation-error.ts';
import { lingerAfterRefusal } from './linger-after-refusal.ts';

export function sendError(
  reply: FastifyReply,
  error: GenerationError,
  shape: ErrorShape,
): FastifyReply {
  if (error.headers !== undefined) reply.headers(error.headers);
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  // Refused before its body arrived (onRequest, a limit): closing the connection spares reading
  // a body nobody will use, up to bodyLimit bytes, instead of draining it; a short bounded read
  // after the answer lets the client see it before the close (docs/decisions/0110).
  if (!reply.request.raw.complete) {
    reply.header('connection', 'close');
    lingerAfterRefusal(reply.request.raw);
  }
  return reply.code(error.status).type('application/json').send(renderErrorBody(error, shape));
}
