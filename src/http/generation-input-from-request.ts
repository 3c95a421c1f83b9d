import type { FastifyReply, FastifyRequest } from 'fastify';

import type { GenerationInput } from '../generation/generation-service.ts';
import type { ObservedCall } from '../observability/call-observer.ts';
import type { HttpMetrics } from './http-metrics.ts';
import {
  bindCompletionFields,
  completionLogFields,
  writesCompletionLine,
} from './completion-log-fields.ts';
import { AbortHandle } from '../shared/abort-handle.ts';
import type { SurfaceCodec } from '../surfaces/surface-codec.ts';

/**
 * Aborts the upstream call when the connection closes before the answer is complete: the client
 * left, or a stop past its grace cut it (docs/decisions/0099).
 */
function clientGoneSignal(
  request: FastifyRequest,
  reply: FastifyReply,
  metrics: HttpMetrics | undefined,
): AbortHandle {
  const controller = new AbortHandle();
  reply.raw.on('close', () => {
    if (reply.raw.writableFinished) return;
    controller.abort();
    // Fastify's onResponse, which counts requests, runs only for a response that finished. A
    // left request is counted under 499, the status proxies give a client that closed its
    // request, without a duration: its response never ended.
    metrics?.requests.inc([request.method, request.routeOptions.url ?? 'unmatched', '499']);
  });
  request.raw.on('aborted', () => controller.abort());
  return controller;
}

/**
 * Fastify writes its "request completed" line when the response finishes; a response whose
 * connection closed first never does. Such a call's line is written here once it has settled,
 * with what it came to and `aborted: true`, so every generation has its line.
 */
function logCompletion(request: FastifyRequest, reply: FastifyReply, call: ObservedCall) {
  // Both lines are written at info: below it the fields are not even gathered.
  if (!writesCompletionLine(request)) return;
  bindCompletionFields(request, completionLogFields(call));
  if (reply.raw.writableFinished || !reply.raw.destroyed) return;
  reply.log.info(
    { res: reply, responseTime: reply.elapsedTime, aborted: true },
    'request completed',
  );
}

/** The generation input of an authenticated HTTP request (its onRequest hook set the principal). */
export function generationInputFromRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  surface: SurfaceCodec,
  metrics?: HttpMetrics,
): GenerationInput {
  return {
    surface,
    body: request.body as Record<string, unknown>,
    bodyBytes:
      Number(request.headers['content-length'] ?? 0) || JSON.stringify(request.body).length,
    principal: request.principal as NonNullable<FastifyRequest['principal']>,
    headers: request.headers,
    requestId: request.id,
    signal: clientGoneSignal(request, reply, metrics),
    // Fastify's "request completed" line then names the model, tokens, cost, caller and
    // upstream beside the status, duration and request id (pino child loggers take bindings
    // after creation).
    onSettled: (call) => logCompletion(request, reply, call),
  };
}
