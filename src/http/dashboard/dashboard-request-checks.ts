import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

import { ApiError } from '../../canonical/generation-error.ts';

/** The session cookie's name (docs/decisions/0168). */
export const sessionCookieName = 'switchyard_session';

const changingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isChangingMethod(method: string): boolean {
  return changingMethods.has(method);
}

/** `scheme://host[:port]` as browsers write an Origin header, or undefined for anything else. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The origins a dashboard page may be served from: the one the request itself names, and
 * `server.publicBaseUrl`'s, which a TLS-terminating proxy in front hides from the request.
 */
export function ownOrigins(request: FastifyRequest, publicBaseUrl: string | undefined): string[] {
  const origins = [originOf(`${request.protocol}://${request.host}`)];
  if (publicBaseUrl !== undefined) origins.push(originOf(publicBaseUrl));
  return origins.filter((origin) => origin !== undefined);
}

/**
 * docs/decisions/0168: a present Origin header must be the gateway's own. A page of another
 * site cannot make the browser send our Origin, whatever cookies the browser attaches.
 */
export function checkOrigin(request: FastifyRequest, publicBaseUrl: string | undefined): void {
  const sent = request.headers.origin;
  if (sent === undefined) return;
  // Browsers leave a default port out; written with it, the origin is still the same one.
  const origin = originOf(sent);
  if (origin === undefined || !ownOrigins(request, publicBaseUrl).includes(origin)) {
    throw new ApiError(
      'csrf_failed',
      'The request comes from another origin; nothing was changed.',
    );
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** `x-csrf-token` must equal the session's token; compared in constant time. */
export function checkCsrfToken(request: FastifyRequest, csrfToken: string): void {
  const sent = request.headers['x-csrf-token'];
  // Equal-length digests make the comparison constant-time whatever the input length.
  if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), digest(csrfToken))) {
    throw new ApiError('csrf_failed');
  }
}

/**
 * The session cookie (docs/decisions/0168): HttpOnly keeps it from scripts, SameSite=Strict from
 * other sites' requests, and Secure when browsers reach the gateway over https.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${sessionCookieName}=${value}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** Whether browsers reach the gateway over https: by the request, or by publicBaseUrl. */
export function isSecureOrigin(
  request: FastifyRequest,
  publicBaseUrl: string | undefined,
): boolean {
  return request.protocol === 'https' || (publicBaseUrl?.startsWith('https:') ?? false);
}
