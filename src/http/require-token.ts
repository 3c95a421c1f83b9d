import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import { readCredential } from '../auth/authenticator.ts';
import type { Permission, TokenInterface } from '../auth/permissions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * An onRequest hook that authenticates the client token for a route (docs/api.md). onRequest
 * runs on the headers, before Fastify reads any byte of the body (docs/decisions/0026): a request
 * with a bad token is refused without buffering or parsing what it sends. With `optional`, a
 * request without any credential passes unauthenticated (the public model list), but a credential
 * that is sent must be valid. A null
 * permission admits any valid token of the interface (docs/decisions/0051).
 */
export function requireToken(
  authenticator: Authenticator,
  permission: Permission | null,
  options: { interface?: TokenInterface; optional?: boolean; now?: () => number } = {},
): onRequestAsyncHookHandler {
  const requirement = { permission, interface: options.interface ?? 'credits' };
  const now = options.now ?? Date.now;
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    const token = readCredential(request.headers);
    if (token === undefined && options.optional === true) return;
    request.principal = await authenticator.authenticate(token, requirement, now());
  };
}
