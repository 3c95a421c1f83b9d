import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkClientTokenShape } from '../auth/client-token.ts';
import { hashDashboardSecret } from '../dashboard/dashboard-secrets.ts';
import { OperatorService } from '../operator/operator-service.ts';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { runCli } from './run-cli.ts';

describe('operator CLI', () => {
  let store: Store;
  let operator: OperatorService;
  let out: string[];
  let errors: string[];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => errors.push(text),
  };
  const run = (...argv: string[]) => runCli(argv, operator, io);

  beforeEach(async () => {
    store = await openSqliteStore({ path: ':memory:' });
    operator = new OperatorService(store);
    out = [];
    errors = [];
  });
  afterEach(async () => store.close());

  it('bootstraps an account with credits and prints a valid token once', async () => {
    expect(await run('--json', 'bootstrap', '--name', 'ada', '--credits', '5')).toBe(0);
    const result = JSON.parse(out.join(''));
    expect(checkClientTokenShape(result.token)).toBe('valid');
    expect((await store.ledger.getBalance(result.account.id)).balance).toBe(5_000_000);
    const [stored] = await store.apiKeys.listApiKeys(result.account.id);
    expect(stored?.hash).not.toContain(result.token);
  });

  it('prints a one-time dashboard sign-in link for an account by id or name, and with bootstrap', async () => {
    expect(await run('--json', 'bootstrap', '--name', 'grace')).toBe(0);
    const booted = JSON.parse(out.join(''));
    expect(booted.dashboard_sign_in.url).toMatch(
      /^http:\/\/localhost:8080\/dashboard\/sign-in#code=[A-Za-z0-9_-]{43}$/,
    );
    out = [];
    expect(await run('dashboard', 'link', 'grace')).toBe(0);
    const text = out.join('');
    expect(text).toContain('one use, until');
    const code = /#code=([A-Za-z0-9_-]{43})/.exec(text)?.[1] as string;
    expect(code).not.toBe(new URL(booted.dashboard_sign_in.url).hash.slice('#code='.length));
    // The store holds the link by its hash: the printed secret uses it up once.
    const now = Date.now();
    expect(await store.dashboardSessions.consumeSignInLink(hashDashboardSecret(code), now)).toBe(
      booted.account.id,
    );
    expect(
      await store.dashboardSessions.consumeSignInLink(hashDashboardSecret(code), now),
    ).toBeUndefined();
    expect(await run('dashboard', 'link', 'nobody')).toBe(1);
    expect(errors.join('')).toContain('No account "nobody"');
  });

  it('sets an account storage quota in bytes or binary units, and returns it to the default', async () => {
    await run('--json', 'account', 'create', '--name', 'acme');
    const account = JSON.parse(out.join(''));
    expect(await run('account', 'storage-quota', account.id, '10GiB')).toBe(0);
    expect((await store.assets.getAccountStorage(account.id)).quotaBytes).toBe(10 * 1024 ** 3);
    expect(await run('account', 'storage-quota', account.id, '1500')).toBe(0);
    expect((await store.assets.getAccountStorage(account.id)).quotaBytes).toBe(1500);
    expect(await run('account', 'storage-quota', account.id, 'default')).toBe(0);
    expect((await store.assets.getAccountStorage(account.id)).quotaBytes).toBeNull();
    expect(await run('account', 'storage-quota', account.id, '2GB')).toBe(1);
    expect(errors.join('')).toContain('"2GB" is not a size');
    expect(await run('account', 'storage-quota', 'acct_missing', '1MiB')).toBe(1);
  });

  it('grants and adjusts credits as ledger entries with reasons, and shows the balance', async () => {
    await run('--json', 'account', 'create', '--name', 'acme');
    const account = JSON.parse(out.join(''));
    out = [];
    expect(await run('credits', 'grant', account.id, '2.5', '--reason', 'trial')).toBe(0);
    expect(await run('credits', 'adjust', account.id, '-0.5', '--reason', 'refund reversal')).toBe(
      0,
    );
    out = [];
    expect(await run('account', 'show', account.id)).toBe(0);
    const text = out.join('');
    expect(text).toContain('balance   2.000000');
    expect(text).toContain('trial');
    expect(text).toContain('refund reversal');
  });

  it('creates a token with chosen permissions, expiry and models, lists and disables it', async () => {
    await run('--json', 'account', 'create', '--name', 'acme');
    const account = JSON.parse(out.join(''));
    out = [];
    expect(
      await run(
        '--json',
        'token',
        'create',
        account.id,
        '--name',
        'ci',
        '--permissions',
        'model:read,inference:create',
        '--expires',
        '30d',
        '--models',
        'a,b',
      ),
    ).toBe(0);
    const created = JSON.parse(out.join(''));
    expect(created.api_key.permissions).toEqual(['model:read', 'inference:create']);
    expect(created.api_key.allowedModels).toEqual(['a', 'b']);
    expect(created.api_key.expiresAt).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    out = [];
    await run('token', 'list', '--account', account.id);
    expect(out.join('')).toContain(`${created.api_key.id}`);
    expect(out.join('')).not.toContain(created.token);
    expect(await run('token', 'disable', created.api_key.id)).toBe(0);
    expect((await store.apiKeys.getApiKey(created.api_key.id))?.disabledAt).toEqual(
      expect.any(Number),
    );
  });

  it('fails with a message on bad input', async () => {
    expect(await run('credits', 'grant', 'acct_missing', '1', '--reason', 'x')).toBe(1);
    expect(errors.join('')).toContain('acct_missing');
    await run('--json', 'account', 'create', '--name', 'acme');
    const account = JSON.parse(out.join(''));
    expect(await run('credits', 'grant', account.id, '1.1234567', '--reason', 'x')).toBe(1);
    expect(await run('credits', 'grant', account.id, '9007199255', '--reason', 'x')).toBe(1);
  });

  it('takes a balance below zero only with --allow-negative', async () => {
    await run('--json', 'account', 'create', '--name', 'acme');
    const account = JSON.parse(out.join(''));
    expect(await run('credits', 'grant', account.id, '1', '--reason', 'trial')).toBe(0);
    expect(await run('credits', 'adjust', account.id, '-2', '--reason', 'claw back')).toBe(1);
    expect(errors.join('')).toContain('below zero');
    expect((await store.ledger.getBalance(account.id)).balance).toBe(1_000_000);
    expect(
      await run('credits', 'adjust', account.id, '-2', '--reason', 'claw back', '--allow-negative'),
    ).toBe(0);
    expect((await store.ledger.getBalance(account.id)).balance).toBe(-1_000_000);
  });
});

describe('the installed bin', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-cli-'));
  });
  afterEach(async () => rm(dataDir, { recursive: true, force: true }));

  it('runs bootstrap against the embedded store named by SWITCHYARD_DATA_DIR', async () => {
    const bin = path.resolve(import.meta.dirname, '../../bin/switchyard.js');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [bin, '--json', 'bootstrap', '--name', 'x'],
      {
        env: { ...process.env, SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_CONFIG: '' },
        cwd: dataDir,
      },
    );
    const result = JSON.parse(stdout);
    expect(checkClientTokenShape(result.token)).toBe('valid');
    const store = await openSqliteStore({ path: path.join(dataDir, 'switchyard.sqlite') });
    try {
      expect((await store.ledger.getBalance(result.account.id)).balance).toBe(10_000_000);
    } finally {
      await store.close();
    }
  });
});
