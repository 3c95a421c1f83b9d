import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardContentSecurityPolicy, dashboardPages } from './dashboard-pages.ts';

const indexHtml = '<!doctype html><title>dashboard</title>';
const script = 'console.log("app")';

async function appServing(directory: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register((instance) => dashboardPages(instance, { directory }));
  app.get('/v1/models', async () => ({ data: [] }));
  await app.ready();
  return app;
}

describe('dashboard pages', () => {
  let directory: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'switchyard-dashboard-'));
    await mkdir(path.join(directory, 'assets'));
    await writeFile(path.join(directory, 'index.html'), indexHtml);
    await writeFile(path.join(directory, 'assets', 'app-ABC123.js'), script);
    await writeFile(path.join(directory, 'assets', 'app-ABC123.js.gz'), gzipSync(script));
    app = await appServing(directory);
  });

  afterAll(async () => {
    await app.close();
    await rm(directory, { recursive: true, force: true });
  });

  it.each(['/dashboard', '/dashboard/', '/dashboard/tokens', '/dashboard/admin/routing'])(
    'answers %s with the page, revalidated on every visit, under the strict policy',
    async (url) => {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(indexHtml);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toBe(dashboardContentSecurityPolicy);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    },
  );

  it('serves a hashed asset for a year, gzipped to a browser that accepts it', async () => {
    const plain = await app.inject({ url: '/dashboard/assets/app-ABC123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(script);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-security-policy']).toBe(dashboardContentSecurityPolicy);

    const zipped = await app.inject({
      url: '/dashboard/assets/app-ABC123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
  });

  it('answers 404 for an asset that does not exist, not the page', async () => {
    const response = await app.inject({ url: '/dashboard/assets/app-OLD.js' });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toBe(indexHtml);
  });

  it('leaves the other routes alone', async () => {
    const response = await app.inject({ url: '/v1/models' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toBeUndefined();
  });

  it('says to build when the pages are not built', async () => {
    const unbuilt = await appServing(path.join(directory, 'missing'));
    try {
      for (const url of ['/dashboard', '/dashboard/usage']) {
        const response = await unbuilt.inject({ url });
        expect(response.statusCode).toBe(503);
        expect(response.json<{ error: { message: string } }>().error.message).toContain(
          'npm run build',
        );
      }
    } finally {
      await unbuilt.close();
    }
  });
});
