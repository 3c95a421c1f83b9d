import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, stat, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `npm run cli -- …` runs the operator CLI from its build (docs/decisions/0113), made on the
 * first command of a fresh clone and again only when a source changed. The checkout is copied,
 * so this suite's builds never touch the `dist/` other suites or a running gateway use.
 */
describe('the operator CLI runs from its build', () => {
  let clone: string;
  const built = () => path.join(clone, 'dist', 'cli', 'switchyard-cli.js');
  const cli = (...argv: string[]) =>
    run(process.execPath, ['bin/switchyard.js', ...argv], {
      cwd: clone,
      env: { PATH: process.env.PATH ?? '', SWITCHYARD_DATA_DIR: path.join(clone, 'data') },
    });

  beforeAll(async () => {
    clone = await mkdtemp(path.join(tmpdir(), 'switchyard-clone-'));
    for (const entry of ['bin', 'scripts', 'src', 'package.json', 'package-lock.json']) {
      await cp(path.join(root, entry), path.join(clone, entry), { recursive: true });
    }
    await symlink(path.join(root, 'node_modules'), path.join(clone, 'node_modules'));
  });
  afterAll(async () => rm(clone, { recursive: true, force: true }));

  it('builds on the first command of a fresh clone, and the built CLI works', async () => {
    const { stdout } = await cli('--help');
    expect(stdout).toContain('bootstrap');
    expect((await stat(built())).isFile()).toBe(true);
    const { stdout: boot } = await cli('--json', 'bootstrap', '--name', 'ada', '--credits', '1');
    expect(JSON.parse(boot).token).toMatch(/^sy_/);
  }, 60_000);

  it('does not build again while the sources are unchanged, and does after one changes', async () => {
    const before = (await stat(built())).mtimeMs;
    await cli('--help');
    expect((await stat(built())).mtimeMs).toBe(before);

    const source = path.join(clone, 'src', 'cli', 'run-cli.ts');
    const later = new Date(Date.now() + 5_000);
    await utimes(source, later, later);
    await cli('--help');
    expect((await stat(built())).mtimeMs).toBeGreaterThan(before);
  }, 60_000);
});
