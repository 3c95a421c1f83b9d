import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkClientTokenShape, hashClientToken } from '../auth/client-token.ts';
import type { UsageRecord } from '../generation/usage-store.ts';
import { OperatorService } from '../operator/operator-service.ts';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { runCli } from './run-cli.ts';

describe('operator CLI: usage reports and token controls', () => {
  let store: Store;
  let operator: OperatorService;
  let out: string[];
  let errors: string[];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => errors.push(text),
  };
  const run = (...argv: string[]) => {
    out = [];
    errors = [];
    return runCli(argv, operator, io, () => Date.UTC(2026, 0, 20));
  };

  beforeEach(async () => {
    store = await openSqliteStore({ path: ':memory:' });
    operator = new OperatorService(store);
  });
  afterEach(async () => store.close());

  function record(accountId: string, overrides: Partial<UsageRecord>): UsageRecord {
    return {
      requestId: `request_${Math.random()}`,
      accountId,
      apiKeyId: 'key_a',
      surface: 'chat',
      model: 'gpt',
      deployment: 'openai/gpt-upstream',
      inputTokens: 100,
      inputCacheReadTokens: 40,
      inputCacheWrite5mTokens: 0,
      inputCacheWrite1hTokens: 0,
      outputTokens: 10,
      reasoningTokens: 0,
      cost: 1_500,
      shortfall: 0,
      latencyMs: 900,
      firstTokenMs: 300,
      outcome: 'ok',
      status: 200,
      createdAt: Date.UTC(2026, 0, 5, 10),
      ...overrides,
    };
  }

  it('reports usage of an account named, grouped, as CSV, and pages the request log', async () => {
    const account = await operator.createAccount({ name: 'acme' });
    for (const overrides of [
      { model: 'gpt, large', createdAt: Date.UTC(2026, 0, 5, 10) },
      { createdAt: Date.UTC(2026, 0, 6, 11), cost: 2_000 },
      { createdAt: Date.UTC(2026, 0, 6, 12), status: 502, outcome: 'upstream_error', cost: 0 },
      // Before the period: in no figure.
      { createdAt: Date.UTC(2025, 11, 31, 23) },
    ]) {
      await store.usage.recordUsage(record(account.id, overrides));
    }

    const range = ['--from', '2026-01-01', '--to', '2026-02-01'];
    expect(
      await run(
        'usage',
        'report',
        '--account',
        'acme',
        ...range,
        '--group-by',
        'day,model',
        '--csv',
      ),
    ).toBe(0);
    expect(out.join('')).toBe(
      [
        'period,model,requests,input_tokens,cached_input_tokens,cache_write_tokens,output_tokens,reasoning_tokens,cost,cost_micro',
        '2026-01-05T00:00:00.000Z,"gpt, large",1,100,40,0,10,0,0.001500,1500',
        '2026-01-06T00:00:00.000Z,gpt,2,200,80,0,20,0,0.002000,2000',
        '',
      ].join('\r\n'),
    );

    expect(await run('--json', 'usage', 'report', '--account', account.id, ...range)).toBe(0);
    expect(JSON.parse(out.join('')).totals).toMatchObject({ requests: 3, cost_micro: 3_500 });
    expect(await run('usage', 'report', ...range, '--group-by', 'week')).toBe(1);
    expect(errors.join('')).toContain('group_by: unknown week');

    expect(
      await run('--json', 'usage', 'requests', '--account', 'acme', ...range, '--limit', '2'),
    ).toBe(0);
    const first = JSON.parse(out.join(''));
    expect(first.data.map((item: { status: number }) => item.status)).toEqual([502, 200]);
    expect(
      await run(
        '--json',
        'usage',
        'requests',
        '--account',
        'acme',
        ...range,
        '--cursor',
        first.next_cursor,
      ),
    ).toBe(0);
    const second = JSON.parse(out.join(''));
    expect(second.data.map((item: { model: string }) => item.model)).toEqual(['gpt, large']);
    expect(second.next_cursor).toBeNull();
    expect(await run('usage', 'requests', '--account', 'acme', ...range, '--status', '502')).toBe(
      0,
    );
    expect(out.join('')).toContain('  502  ');
    expect(out.join('')).not.toContain('next page');
  });

  it('updates, rotates and deletes a token', async () => {
    const account = await operator.createAccount({ name: 'acme' });
    const { token, apiKey } = await operator.createToken({ accountId: account.id, name: 'ci' });

    expect(
      await run(
        'token',
        'update',
        apiKey.id,
        '--name',
        'ci runner',
        '--budget',
        '5',
        '--period',
        'weekly',
        '--rpm',
        '30',
      ),
    ).toBe(0);
    expect(await store.apiKeys.getApiKey(apiKey.id)).toMatchObject({
      name: 'ci runner',
      budget: { amount: 5_000_000, period: 'weekly' },
      limits: { requestsPerMinute: 30 },
    });
    expect(await run('token', 'update', apiKey.id, '--no-budget', '--default-limits')).toBe(0);
    expect(await store.apiKeys.getApiKey(apiKey.id)).toMatchObject({ budget: null, limits: null });
    expect(await run('token', 'update', apiKey.id, '--budget', '-1')).toBe(1);
    expect(await run('token', 'update', apiKey.id, '--rpm', '0')).toBe(1);
    expect(errors.join('')).toContain('--rpm: "0" is not a positive integer');

    expect(await run('--json', 'token', 'rotate', apiKey.id)).toBe(0);
    const rotated = JSON.parse(out.join(''));
    expect(checkClientTokenShape(rotated.token)).toBe('valid');
    expect(await store.apiKeys.findApiKeyByHash(hashClientToken(token))).toBeUndefined();
    expect(await store.apiKeys.findApiKeyByHash(hashClientToken(rotated.token))).toMatchObject({
      id: apiKey.id,
      name: 'ci runner',
    });

    expect(await run('token', 'delete', apiKey.id)).toBe(0);
    expect(await store.apiKeys.getApiKey(apiKey.id)).toBeUndefined();
    expect(await run('token', 'delete', apiKey.id)).toBe(1);
    expect(errors.join('')).toContain(`No token "${apiKey.id}"`);
  });

  it('creates a token for an account named, with a budget and limits of its own', async () => {
    const account = await operator.createAccount({ name: 'acme' });
    expect(
      await run(
        '--json',
        'token',
        'create',
        'acme',
        '--name',
        'bot',
        '--budget',
        '2',
        '--period',
        'daily',
        '--concurrent',
        '2',
      ),
    ).toBe(0);
    const created = JSON.parse(out.join(''));
    expect(created.api_key).toMatchObject({
      accountId: account.id,
      budget: { amount: 2_000_000, period: 'daily' },
      limits: { concurrentRequests: 2 },
    });
    expect(await run('--json', 'token', 'create', 'acme', '--name', 'plain')).toBe(0);
    expect(JSON.parse(out.join('')).api_key).toMatchObject({ budget: null, limits: null });
  });

  it('refuses a second account of a taken name', async () => {
    expect(await run('account', 'create', '--name', 'acme')).toBe(0);
    expect(await run('account', 'create', '--name', 'acme')).toBe(1);
    expect(errors.join('')).toContain('An account named "acme" exists already');
  });
});
