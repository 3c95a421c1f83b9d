import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../canonical/generation-error.ts';
import {
  installerScripts,
  loadInstallerTemplate,
  type InstallerName,
} from '../../install/installer-scripts.ts';
import {
  deriveInstallerBaseUrl,
  normalizeInstallerBaseUrl,
} from '../../install/resolve-installer-base-url.ts';

export interface InstallRouteDependencies {
  /** `server.publicBaseUrl`; without it the URL is derived from each request. */
  publicBaseUrl: string | undefined;
}

/**
 * GET /install/{claude-code,codex}.{sh,ps1} (docs/installers.md): public, unauthenticated scripts
 * that ask for the token themselves. Hidden from the client OpenAPI document like the health
 * routes.
 */
export async function installRoutes(
  app: FastifyInstance,
  dependencies: InstallRouteDependencies,
): Promise<void> {
  const configured =
    dependencies.publicBaseUrl === undefined
      ? undefined
      : normalizeInstallerBaseUrl(dependencies.publicBaseUrl);
  if (dependencies.publicBaseUrl !== undefined && configured === undefined) {
    throw new Error(
      'server.publicBaseUrl cannot be written into installer scripts: use an http(s) URL without credentials, query, fragment, quotes or spaces.',
    );
  }

  for (const name of Object.keys(installerScripts) as InstallerName[]) {
    const template = loadInstallerTemplate(name);
    app.get(`/install/${name}`, { schema: { hide: true } }, async (request, reply) => {
      const baseUrl = configured ?? deriveInstallerBaseUrl(request.protocol, request.headers.host);
      if (baseUrl === undefined) {
        throw new ApiError(
          'invalid_header',
          'The Host header cannot be written into an installer script; the operator can set server.publicBaseUrl.',
        );
      }
      // A script derived from the Host header must not be shared by a cache between hosts.
      return reply
        .header('cache-control', configured === undefined ? 'no-store' : 'public, max-age=300')
        .header('x-content-type-options', 'nosniff')
        .type('text/plain; charset=utf-8')
        .send(template.render(baseUrl));
    });
  }
}
