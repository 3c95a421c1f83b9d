import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';

import type { Authenticator } from '../../auth/authenticator.ts';
import type { TokenBudgets } from '../../billing/token-budgets.ts';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { DashboardSessions, SignedIn } from '../../dashboard/dashboard-sessions.ts';
import { readCookie } from '../../dashboard/read-cookie.ts';
import type { ImageJobStore } from '../../features/images/image-job-store.ts';
import type { StorageService } from '../../features/storage/storage-service.ts';
import type { OperatorService } from '../../operator/operator-service.ts';
import type { Router } from '../../routing/router.ts';
import {
  checkCsrfToken,
  checkOrigin,
  isChangingMethod,
  isSecureOrigin,
  sessionCookie,
  sessionCookieName,
} from '../dashboard/dashboard-request-checks.ts';
import { signedIn } from '../dashboard/signed-in.ts';
import { dashboardAccountRoutes } from './dashboard-account-routes.ts';
import { dashboardAdminRoutes } from './dashboard-admin-routes.ts';
import { dashboardStorageRoutes } from './dashboard-storage-routes.ts';
import { dashboardTokenRoutes } from './dashboard-token-routes.ts';

export interface DashboardRouteDependencies {
  sessions: DashboardSessions;
  operator: OperatorService;
  authenticator: Authenticator;
  /** `server.publicBaseUrl`: its origin counts as the gateway's own, https makes cookies Secure. */
  publicBaseUrl: string | undefined;
  budgets?: TokenBudgets;
  /** Absent when file storage is not configured: its routes are absent too. */
  storage?: StorageService;
  /** Absent when image generation is not configured: the image jobs route is absent too. */
  imageJobs?: ImageJobStore;
  /** For the operator's routing view; absent, that route is too. */
  routing?: { catalog: ModelCatalog; router: Router };
  /** The gateway's own metric registry, read for the operator's metrics view. */
  metrics: Registry;
}

const hidden = { hide: true };

function presentSession({ session, account }: SignedIn) {
  return {
    account: { id: account.id, name: account.name, is_admin: account.isAdmin },
    csrf_token: session.csrfToken,
    expires_at: new Date(session.expiresAt).toISOString(),
  };
}

/**
 * The dashboard's JSON API (docs/decisions/0168): authenticated by the session cookie alone, so
 * an Authorization or x-api-key header opens nothing here. An encapsulated plugin: its hooks run
 * on these routes only, never on the client API.
 */
export async function dashboardRoutes(
  app: FastifyInstance,
  dependencies: DashboardRouteDependencies,
): Promise<void> {
  const { sessions, publicBaseUrl } = dependencies;
  // Answers hold account data and the CSRF token: no cache keeps them (RFC 9111 §5.2.2.5).
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  await app.register(async (signIn) => {
    // No session yet, hence no CSRF token: the Origin check alone guards the exchange.
    signIn.addHook('onRequest', async (request) => checkOrigin(request, publicBaseUrl));
    signIn.post(
      '/api/dashboard/session',
      {
        schema: {
          ...hidden,
          body: Type.Object({ code: Type.String() }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        const { code } = request.body as { code: string };
        const opened = await sessions.signIn(code);
        if (opened === undefined) throw new ApiError('dashboard_sign_in_failed');
        const maxAge = Math.floor((opened.session.expiresAt - opened.session.createdAt) / 1000);
        return reply
          .code(201)
          .header(
            'set-cookie',
            sessionCookie(opened.cookieValue, maxAge, isSecureOrigin(request, publicBaseUrl)),
          )
          .send(presentSession(opened));
      },
    );
  });

  await app.register(async (session) => {
    // onRequest: the session and the CSRF token are checked before any body is read.
    session.addHook('onRequest', async (request) => {
      const found = await sessions.find(readCookie(request.headers.cookie, sessionCookieName));
      if (found === undefined) throw new ApiError('dashboard_unauthorized');
      if (isChangingMethod(request.method)) {
        checkOrigin(request, publicBaseUrl);
        checkCsrfToken(request, found.session.csrfToken);
      }
      request.dashboard = found;
    });

    session.get('/api/dashboard/session', { schema: hidden }, async (request) =>
      presentSession(signedIn(request)),
    );

    session.post('/api/dashboard/sign-out', { schema: hidden }, async (request, reply) => {
      await sessions.signOut(signedIn(request).session);
      return reply
        .code(204)
        .header('set-cookie', sessionCookie('', 0, isSecureOrigin(request, publicBaseUrl)))
        .send();
    });

    await session.register(dashboardAccountRoutes, dependencies);
    await session.register(dashboardTokenRoutes, dependencies);
    const { storage } = dependencies;
    if (storage !== undefined) await session.register(dashboardStorageRoutes, { storage });
    await session.register(dashboardAdminRoutes, dependencies);
  });
}
