import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';
import { openStore } from '../../src/compose.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { OperatorService } from '../../src/operator/operator-service.ts';
import { freePort } from '../support/free-port.ts';
import { migrateFileToLatest, stepBackLastMigration } from '../support/migration-databases.ts';

/**
 * docs/decisions/0014: every operator command runs while a real gateway process serves the same embedded
 * store, and the gateway sees its effects. The gateway runs `src/main.ts` as `npm start` does,
 * without the build step, on a temporary data folder and a free port. `--help` and `bootstrap`
 * (the README's first-token step) run through the installed bin; the other commands run in this
 * test's process, a process other than the gateway's, opening the store as the bin does, which
 * keeps the suite short.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('the operator CLI beside a running gateway on the embedded store', () => {
  let dataDir: string;
  let port: number;
  let gateway: ChildProcess;
  let gatewayOutput = '';
  let env: NodeJS.ProcessEnv;

  const cli = async (...argv: string[]) => {
    const { stdout } = await run(process.execPath, ['bin/switchyard.js', ...argv], {
      cwd: root,
      env,
    });
    return stdout;
  };
  const cliJson = async (...argv: string[]) => {
    const store = await openStore(loadConfig(env).config, { owner: false });
    const out: string[] = [];
    const errors: string[] = [];
    try {
      const code = await runCli(['--json', ...argv], new OperatorService(store), {
        stdout: (text) => out.push(text),
        stderr: (text) => errors.push(text),
      });
      if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}: ${errors.join('')}`);
    } finally {
      await store.close();
    }
    return JSON.parse(out.join(''));
  };
  const call = async (pathname: string, token?: string) => {
    const response = await request(`http://127.0.0.1:${port}${pathname}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    await response.body.dump();
    return { status: response.statusCode, ok: response.statusCode === 200 };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-cli-'));
    port = await freePort();
    const configPath = path.join(dataDir, 'switchyard.config.json');
    await writeFile(
      configPath,
      JSON.stringify({ dataDir, server: { host: '127.0.0.1', port, logLevel: 'info' } }),
    );
    env = { PATH: process.env.PATH ?? '', SWITCHYARD_CONFIG: configPath };
    gateway = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env });
    gateway.stdout?.on('data', (chunk: Buffer) => (gatewayOutput += chunk.toString()));
    gateway.stderr?.on('data', (chunk: Buffer) => (gatewayOutput += chunk.toString()));
    const startedAt = Date.now();
    for (;;) {
      if (gateway.exitCode !== null) throw new Error(`the gateway exited:\n${gatewayOutput}`);
      const ready = await call('/readyz').then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() - startedAt > 80_000) throw new Error(`no gateway:\n${gatewayOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 90_000);

  afterAll(async () => {
    if (gateway?.pid !== undefined && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway.once('exit', resolve));
      process.kill(gateway.pid, 'SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints help', async () => {
    expect(await cli('--help')).toContain('bootstrap');
  }, 60_000);

  it('runs every command and the gateway serves the token they made at once', async () => {
    // The gateway's own first-start advice, followed while it runs.
    expect(gatewayOutput).toContain('npm run cli -- bootstrap');
    const boot = JSON.parse(await cli('--json', 'bootstrap', '--name', 'ada', '--credits', '10'));
    expect(boot.token).toMatch(/^sy_/);
    expect(boot.api_key.accountId).toBe(boot.account.id);
    expect(boot.balance).toMatchObject({ balance: '10.000000', balance_micro: 10_000_000 });
    expect((await call('/v1/models', boot.token)).status).toBe(200);

    const account = await cliJson('account', 'create', '--name', 'acme');
    expect((await cliJson('account', 'list')).data.map((item: { id: string }) => item.id)).toEqual(
      expect.arrayContaining([boot.account.id, account.id]),
    );
    const grant = await cliJson('credits', 'grant', account.id, '2.5', '--reason', 'trial');
    expect(grant.entry).toMatchObject({ amount: '2.500000', amount_micro: 2_500_000 });
    expect(grant.balance).toMatchObject({ balance: '2.500000', available_micro: 2_500_000 });
    const adjust = await cliJson('credits', 'adjust', account.id, '-0.5', '--reason', 'fix');
    expect(adjust.balance.balance).toBe('2.000000');

    const created = await cliJson(
      'token',
      'create',
      account.id,
      '--name',
      'ci',
      '--permissions',
      'model:read',
    );
    expect(created.api_key.permissions).toEqual(['model:read']);
    expect((await call('/v1/models', created.token)).status).toBe(200);
    const listed = await cliJson('token', 'list', '--account', account.id);
    expect(listed.data.map((item: { id: string }) => item.id)).toEqual([created.api_key.id]);

    const shown = await cliJson('account', 'show', account.id);
    expect(shown.balance).toMatchObject({ balance: '2.000000', balance_micro: 2_000_000 });
    expect(shown.ledger.map((entry: { amount: string }) => entry.amount)).toEqual([
      '-0.500000',
      '2.500000',
    ]);

    expect((await cliJson('token', 'disable', created.api_key.id)).disabledAt).toEqual(
      expect.any(Number),
    );
    // A token never seen by the gateway is refused at once: only successful lookups are cached.
    const unused = await cliJson('token', 'create', account.id, '--name', 'unused');
    await cliJson('token', 'disable', unused.api_key.id);
    expect((await call('/v1/models', unused.token)).status).toBe(401);
    expect(gateway.exitCode).toBeNull();
  }, 120_000);

  it('refuses to upgrade the store under the gateway, names it and exits 75', async () => {
    // The file as an older build left it (its last migration not applied), served by the gateway.
    const file = path.join(dataDir, 'switchyard.sqlite');
    const last = await stepBackLastMigration(file);
    try {
      const refused = await cli('account', 'list').then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code).toBe(75);
      expect(refused?.stderr).toContain(`Another Switchyard process (pid ${gateway.pid} `);
      expect(refused?.stderr).toContain(`would upgrade it (${last})`);
      expect(refused?.stderr).not.toContain('StoreHeldError');
      expect(gateway.exitCode).toBeNull();
    } finally {
      await migrateFileToLatest(file);
    }
  }, 60_000);
});
