import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../../canonical/generation-error.ts';
import { sendError } from '../send-error.ts';

export interface DashboardPagesOptions {
  /** The built pages (`npm run build` writes dist/dashboard/): index.html and assets/. */
  directory: string;
}

/**
 * docs/dashboard.md: the pages load nothing from another origin and run no inline script or
 * style, so a strict policy costs them nothing and bounds what an injected string could do.
 */
export const dashboardContentSecurityPolicy = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const hidden = { hide: true };

function setSecurityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', dashboardContentSecurityPolicy);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

/**
 * The dashboard's pages under /dashboard (docs/dashboard.md): index.html for /dashboard and every
 * client-side route below it, revalidated on each visit (it names the current assets), and the
 * hashed assets under /dashboard/assets/, kept for a year. An encapsulated plugin: its hook runs
 * for these routes only, never on the /v1 paths.
 */
export async function dashboardPages(
  app: FastifyInstance,
  options: DashboardPagesOptions,
): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    setSecurityHeaders(reply);
    done();
  });
  const indexFile = path.join(options.directory, 'index.html');
  if (!existsSync(indexFile)) {
    // Started from source without a build: say what to run instead of a bare 404.
    const notBuilt = async (_request: unknown, reply: FastifyReply) =>
      sendError(
        reply,
        new ApiError(
          'not_ready',
          'The dashboard pages are not built: run `npm run build` (`npm start` builds them).',
        ).toGenerationError(),
        'A',
      );
    app.get('/dashboard', { schema: hidden }, notBuilt);
    app.get('/dashboard/*', { schema: hidden }, notBuilt);
    return;
  }
  // Read once: the build replaces the whole folder, and a running gateway keeps serving the
  // page that names the assets it has.
  const indexHtml = await readFile(indexFile);
  await app.register(fastifyStatic, {
    root: path.join(options.directory, 'assets'),
    prefix: '/dashboard/assets/',
    decorateReply: false,
    index: false,
    // Names carry a content hash (scripts/build-dashboard.mjs): a changed file has a new name.
    immutable: true,
    maxAge: 365 * 24 * 60 * 60 * 1000,
    // The build writes a gzip copy beside each asset.
    preCompressed: true,
    schemaHide: true,
  });
  const sendIndex = async (_request: unknown, reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  app.get('/dashboard', { schema: hidden }, sendIndex);
  app.get('/dashboard/*', { schema: hidden }, sendIndex);
}
