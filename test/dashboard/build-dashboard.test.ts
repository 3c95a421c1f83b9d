import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const buildScript = fileURLToPath(new URL('../../scripts/build-dashboard.mjs', import.meta.url));

/** What the pages may weigh, gzipped (docs/decisions/0171); a new dependency shows here. */
const largestScriptGzipBytes = 60 * 1024;

describe('the dashboard build', () => {
  let folder: string;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'switchyard-dashboard-build-'));
    await promisify(execFile)(process.execPath, [buildScript, `--outdir=${folder}`]);
    html = await readFile(path.join(folder, 'index.html'), 'utf8');
    assets = await readdir(path.join(folder, 'assets'));
  }, 30_000);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('writes one hashed script and one hashed stylesheet that index.html names', () => {
    const script = assets.find((file) => /^app-[A-Z0-9]{8}\.js$/.test(file));
    const stylesheet = assets.find((file) => /^app-[A-Z0-9]{8}\.css$/.test(file));
    expect(script).toBeDefined();
    expect(stylesheet).toBeDefined();
    expect(html).toContain(`<script type="module" src="/dashboard/assets/${script}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="/dashboard/assets/${stylesheet}" />`);
    expect(assets).toContain(`${script}.gz`);
    expect(assets).toContain(`${stylesheet}.gz`);
  });

  it('has no inline script or style and names no other origin, as the policy requires', () => {
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('bundles uPlot and its stylesheet, and stays small', async () => {
    const script = assets.find((file) => file.endsWith('.js.gz')) as string;
    const stylesheet = assets.find((file) => file.endsWith('.css')) as string;
    const zipped = await readFile(path.join(folder, 'assets', script));
    expect(zipped.byteLength).toBeLessThan(largestScriptGzipBytes);
    expect(gunzipSync(zipped).toString('utf8')).toContain('uplot');
    expect(await readFile(path.join(folder, 'assets', stylesheet), 'utf8')).toContain('.uplot');
  });
});
