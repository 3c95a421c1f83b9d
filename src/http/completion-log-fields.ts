import type { FastifyRequest } from 'fastify';

import type { ObservedCall } from '../observability/call-observer.ts';

/**
 * The fields a generation adds to its request's completion log line, over HTTP and over the
 * responses WebSocket alike: with the line's own status, duration and request id they say what
 * the request came to and who asked. `tokenId` is the API key's id, never its secret;
 * `deployment` is the last upstream tried (the one that answered, when one did); `ttfbMs` is
 * there when the answer's first byte left before it ended (a stream).
 */
export function completionLogFields(call: ObservedCall): Record<string, unknown> {
  const last = call.attempts.at(-1);
  return {
    model: call.model,
    outcome: call.outcome,
    inputTokens: call.usage?.inputTokens.total ?? 0,
    outputTokens: call.usage?.outputTokens.total ?? 0,
    costMicroCredits: call.costMicroCredits,
    accountId: call.accountId,
    tokenId: call.apiKeyId,
    ...(last !== undefined ? { deployment: last.deployment } : {}),
    attempts: call.attempts.length,
    ...(call.firstByteAt !== undefined ? { ttfbMs: call.firstByteAt - call.startedAt } : {}),
  };
}

/**
 * Adds fields to the request's "request completed" log line, so it says what the request came to
 * beside its status, duration and request id. Pino's child loggers take bindings after creation;
 * fastify's logger type does not say so. That line is written at `info`: below it nothing is
 * bound, since binding serialises the fields at once (~2.5 µs a request in `perf`) and nothing
 * would print them.
 */
export function bindCompletionFields(
  request: FastifyRequest,
  fields: Record<string, unknown>,
): void {
  if (!writesCompletionLine(request)) return;
  const log = request.log as FastifyRequest['log'] & {
    setBindings?: (bindings: Record<string, unknown>) => void;
  };
  log.setBindings?.(fields);
}

/**
 * Whether the request's completion line is written (it is at `info`): below that level its
 * fields are not worth gathering.
 */
export function writesCompletionLine(request: FastifyRequest): boolean {
  const log = request.log as FastifyRequest['log'] & {
    isLevelEnabled?: (level: string) => boolean;
  };
  return log.isLevelEnabled?.('info') !== false;
}
