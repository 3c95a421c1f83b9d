import { pipeline, type Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
} from 'fastify';
// The plugin's type augmentation gives route options their `wsHandler`.
import type {} from '@fastify/websocket';
import type { Authenticator } from '../../auth/authenticator.ts';
import { readCredential } from '../../auth/authenticator.ts';
import type { Permission } from '../../auth/permissions.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import {
  relayedResponseHeaders,
  TranscriptionForwarder,
  type TranscribeTarget,
} from '../../connected/forward-transcription.ts';
import { limitBodyBytes } from '../../connected/limit-body-bytes.ts';
import { relayWebSocket, type WebSocketTarget } from '../../connected/relay-websocket.ts';
import { isTimeout, isTransportFailure } from '../../providers/shared/upstream-pool.ts';
import { acceptBody } from '../defer-continue.ts';

export interface ConnectedRouteDependencies {
  authenticator: Authenticator;
  /** `connected.transcribe` with its key resolved; undefined when not configured. */
  transcribe: (TranscribeTarget & { maxBodyBytes: number }) | undefined;
  /** `connected.websocket` with its key resolved; undefined when not configured. */
  websocket: WebSocketTarget | undefined;
  now?: () => number;
}

/**
 * docs/decisions/0010: connected-provider routes exist only for administrator accounts holding a
 * `connected` token; a `credits` token is refused with 400 by the interface binding (docs/api.md).
 * Checked in onRequest, before a body is read or a socket upgraded.
 */
function requireConnectedToken(
  authenticator: Authenticator,
  permission: Permission,
  now: () => number,
): onRequestAsyncHookHandler {
  return async function authenticateConnected(request: FastifyRequest) {
    const principal = await authenticator.authenticate(
      readCredential(request.headers),
      { permission, interface: 'connected' },
      now(),
    );
    if (!principal.account.isAdmin) {
      throw new ApiError(
        'permission_denied',
        'Connected-provider routes are for administrator accounts only.',
      );
    }
    request.principal = principal;
  };
}

function notConfigured(route: string, key: string): ApiError {
  return new ApiError(
    'not_found',
    `${route} is not available: no connected-provider upstream is configured (${key}).`,
  );
}

function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/** POST /transcribe (+ /v1/transcribe) and the WebSocket relay GET /ws (+ exactly /v1). */
export async function connectedRoutes(
  app: FastifyInstance,
  dependencies: ConnectedRouteDependencies,
): Promise<void> {
  const { authenticator, transcribe, websocket } = dependencies;
  const now = dependencies.now ?? Date.now;

  // The body passes through untouched, whatever its type: no parser reads it here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    acceptBody(request.raw);
    done(null, payload);
  });

  const forwarder = transcribe === undefined ? undefined : new TranscriptionForwarder(transcribe);
  if (forwarder !== undefined) app.addHook('onClose', async () => forwarder.close());

  const transcribeHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (forwarder === undefined || transcribe === undefined) {
      throw notConfigured('/transcribe', 'connected.transcribe.url');
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > transcribe.maxBodyBytes) throw new ApiError('request_too_large');
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    let body: Readable | undefined;
    let tooLarge = false;
    if (request.body !== undefined && request.body !== null) {
      const limiter = limitBodyBytes(transcribe.maxBodyBytes, () => {
        tooLarge = true;
      });
      // Failures surface through the upstream request; the callback only ends the pipeline.
      body = pipeline(request.body as Readable, limiter, () => undefined);
    }
    let upstream;
    try {
      upstream = await forwarder.forward({
        body,
        headers: request.headers,
        query: queryOf(request.url),
        signal: controller.signal,
      });
    } catch (error) {
      if (tooLarge) throw new ApiError('request_too_large');
      if (isTransportFailure(error) || isTimeout(error)) {
        request.log.warn({ err: error }, 'connected transcription upstream failed');
        throw new ApiError('upstream_error');
      }
      throw error;
    }
    for (const name of relayedResponseHeaders) {
      const value = upstream.headers[name];
      if (typeof value === 'string') reply.header(name, value);
    }
    return reply.code(upstream.statusCode).send(upstream.body);
  };
  const transcribeOptions = {
    onRequest: requireConnectedToken(authenticator, 'audio:create', now),
    schema: { hide: true },
  };
  app.post('/transcribe', transcribeOptions, transcribeHandler);
  app.post('/v1/transcribe', transcribeOptions, transcribeHandler);

  for (const path of ['/ws', '/v1']) {
    app.route({
      method: 'GET',
      url: path,
      onRequest: requireConnectedToken(authenticator, 'inference:create', now),
      // Runs before the upgrade, so an unconfigured relay answers over HTTP.
      preHandler: async () => {
        if (websocket === undefined) throw notConfigured(path, 'connected.websocket.url');
      },
      schema: { hide: true },
      // Reached only without an upgrade: the route is a WebSocket and nothing else.
      handler: async (_request, reply) => {
        reply.header('upgrade', 'websocket');
        throw new ApiError('invalid_request', `${path} accepts only a WebSocket upgrade.`, {
          status: 426,
        });
      },
      wsHandler: (socket, request) => {
        relayWebSocket(socket, websocket as WebSocketTarget, {
          query: queryOf(request.url),
          protocol: socket.protocol,
          onError: (error, side) =>
            request.log.warn({ err: error, side }, 'connected WebSocket relay error'),
        });
      },
    });
  }
}
