import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError, renderErrorBody } from '../canonical/generation-error.ts';
import { errorShapeForUrl } from './error-shape.ts';

/** What Node keeps on a connection's socket: the request being parsed and the response. */
interface HttpSocket extends Socket {
  parser?: { incoming?: { url?: string } | null } | null;
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * Answers errors Node raises before a request reaches a route (Fastify's `clientErrorHandler`):
 * a request that did not arrive within `server.requestReceiveTimeoutMs` (docs/operations.md) gets
 * 408 in the error shape of its route, anything else unparseable 400 (431 for oversized headers),
 * and the connection is closed either way.
 */
export function answerClientError(this: FastifyInstance, error: Error, socket: Socket): void {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNRESET' || code === 'EPIPE' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const httpSocket = socket as HttpSocket;
  // Once a response has begun on this connection, another status line would corrupt it.
  if (socket.writable && httpSocket._httpMessage?.headersSent !== true) {
    const apiError =
      code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('request_timeout')
        : code === 'HPE_HEADER_OVERFLOW'
          ? new ApiError('invalid_header', 'The request headers are too large.', { status: 431 })
          : new ApiError('invalid_request', 'The request could not be parsed as HTTP.');
    const url = httpSocket.parser?.incoming?.url ?? '';
    const body = JSON.stringify(
      renderErrorBody(apiError.toGenerationError(), errorShapeForUrl(url)),
    );
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
  }
  this.log.debug({ err: error }, 'client error');
  socket.destroy();
}
