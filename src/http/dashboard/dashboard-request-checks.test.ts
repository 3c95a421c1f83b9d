import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';

import { dashboardBaseUrl } from '../../dashboard/dashboard-base-url.ts';
import {
  checkCsrfToken,
  checkOrigin,
  isSecureOrigin,
  sessionCookie,
} from './dashboard-request-checks.ts';

function requestOf(
  headers: Record<string, string>,
  protocol: 'http' | 'https' = 'http',
  host = 'gateway.internal:8080',
): FastifyRequest {
  return { headers, protocol, host } as unknown as FastifyRequest;
}

describe('dashboard request checks', () => {
  it("accepts no Origin, the request's own, and publicBaseUrl's; refuses any other", () => {
    expect(() => checkOrigin(requestOf({}), undefined)).not.toThrow();
    expect(() =>
      checkOrigin(requestOf({ origin: 'http://gateway.internal:8080' }), undefined),
    ).not.toThrow();
    // Behind a TLS-terminating proxy the request says http; the public URL names the origin.
    const proxied = requestOf({ origin: 'https://gw.example' });
    expect(() => checkOrigin(proxied, 'https://gw.example/')).not.toThrow();
    expect(() => checkOrigin(proxied, undefined)).toThrow(
      expect.objectContaining({ code: 'csrf_failed' }),
    );
    for (const origin of ['https://gateway.internal:8080', 'http://evil.example', 'null', '']) {
      expect(() => checkOrigin(requestOf({ origin }), 'https://gw.example')).toThrow(
        expect.objectContaining({ code: 'csrf_failed', status: 403 }),
      );
    }
  });

  it('treats an Origin with its default port as the same origin', () => {
    const request = requestOf({ origin: 'https://gw.example:443' }, 'https', 'gw.example');
    expect(() => checkOrigin(request, undefined)).not.toThrow();
  });

  it('wants the exact CSRF token', () => {
    const token = 'a'.repeat(43);
    expect(() => checkCsrfToken(requestOf({ 'x-csrf-token': token }), token)).not.toThrow();
    const refused: Array<Record<string, string>> = [
      {},
      { 'x-csrf-token': '' },
      { 'x-csrf-token': `${token}a` },
    ];
    for (const headers of refused) {
      expect(() => checkCsrfToken(requestOf(headers), token)).toThrow(
        expect.objectContaining({ code: 'csrf_failed' }),
      );
    }
  });

  it('marks the cookie Secure when browsers come over https', () => {
    expect(isSecureOrigin(requestOf({}), undefined)).toBe(false);
    expect(isSecureOrigin(requestOf({}), 'https://gw.example')).toBe(true);
    expect(isSecureOrigin(requestOf({}, 'https'), undefined)).toBe(true);
    expect(sessionCookie('v', 43200, true)).toBe(
      'switchyard_session=v; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200; Secure',
    );
    expect(sessionCookie('', 0, false)).toBe(
      'switchyard_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0',
    );
  });

  it('points links at publicBaseUrl, else at localhost on the configured port', () => {
    const server = (publicBaseUrl?: string) =>
      ({ server: { port: 9090, ...(publicBaseUrl ? { publicBaseUrl } : {}) } }) as never;
    expect(dashboardBaseUrl(server())).toBe('http://localhost:9090');
    expect(dashboardBaseUrl(server('https://gw.example/base/'))).toBe('https://gw.example/base');
  });
});
