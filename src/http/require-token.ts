import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
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
 *
 * A token whose lookup is cached passes at once (`Authenticator.admitCached`); any other waits
 * for `authenticate`, which also decides every refusal.
 */
export function requireToken(
  authenticator: Authenticator,
  permission: Permission | null,
  options: { interface?: TokenInterface; optional?: boolean; now?: () => number } = {},
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const requirement = { permission, interface: options.interface ?? 'credits' };
  const now = options.now ?? Date.now;
  return function authenticate(request, _reply, done) {
    const token = readCredential(request.headers);
    if (token === undefined && options.optional === true) return done();
    const at = now();
    const known = authenticator.admitCached(token, requirement, at);
    if (known !== undefined) {
      request.principal = known;
      return done();
    }
    authenticator.authenticate(token, requirement, at).then((principal) => {
      request.principal = principal;
      done();
    }, done);
  };
}
