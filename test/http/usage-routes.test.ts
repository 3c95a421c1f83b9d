import { beforeEach, describe, expect, it } from 'vitest';

import {
  adminToken,
  modelPerDialect,
  settledUsageRecord,
  type TestGateway,
} from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

const models = { anthropic: 'claude', chat: 'gpt', responses: 'resp' } as const;

/** One chat-completions call; the upstream answers with the usage queued on the fake. */
async function call(gateway: TestGateway, token: string, model: string) {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${token}` },
    payload: { model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.headers['x-request-id'] as string;
}

describe('usage reports: admin API and the account holder’s own view', () => {
  const bed = useUpstreamTestBed({ ...modelPerDialect(models) });
  beforeEach(() => bed.fake.reset());

  const admin = (url: string) =>
    bed.gateway.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${adminToken}` },
    });
  const client = (url: string, token: string) =>
    bed.gateway.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  /** An account with two calls on `gpt` and one on `resp`, each charged and recorded. */
  async function accountWithCalls() {
    const { gateway } = bed;
    const first = await gateway.createToken({ credits: 50_000_000 });
    const second = await gateway.operator.createToken({
      accountId: first.accountId,
      name: 'second',
    });
    const ids: string[] = [];
    for (const [token, model, input, output] of [
      [first.token, models.chat, 1_200, 300],
      [second.token, models.chat, 400, 90],
      [first.token, models.responses, 2_000, 700],
    ] as const) {
      bed.fake.enqueue({ output: [{ text: 'ok' }], usage: { input, output } });
      ids.push(await call(gateway, token, model));
    }
    await settledUsageRecord(gateway, first.accountId);
    const account = await gateway.operator.requireAccount(first.accountId);
    return { ...first, second, account, ids };
  }

  it('reports, by account name, totals that equal the ledger’s charges, grouped as asked', async () => {
    const { account, apiKeyId, second } = await accountWithCalls();
    const other = await bed.gateway.createToken({ credits: 5_000_000 });
    bed.fake.enqueue({ output: [{ text: 'ok' }], usage: { input: 10, output: 10 } });
    await call(bed.gateway, other.token, models.chat);

    const response = await admin(
      `/api/admin/usage?account=${encodeURIComponent(account.name)}&group_by=model,token`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const report = response.json();
    const entries = await bed.gateway.store.ledger.listEntries(account.id, 100);
    const charged = entries
      .filter((entry) => entry.kind === 'usage')
      .reduce((sum, entry) => sum - entry.amount, 0);
    expect(charged).toBeGreaterThan(0);
    expect(report.totals).toMatchObject({
      requests: 3,
      inputTokens: 3_600,
      outputTokens: 1_090,
      cost_micro: charged,
    });
    expect(
      report.data.map((group: Record<string, unknown>) => [
        group.model,
        group.apiKeyId,
        group.requests,
      ]),
    ).toEqual(
      [
        [models.chat, apiKeyId, 1],
        [models.chat, second.apiKey.id, 1],
        [models.responses, apiKeyId, 1],
      ].sort((left, right) => `${left[0]}${left[1]}`.localeCompare(`${right[0]}${right[1]}`)),
    );
    const groupSum = report.data.reduce(
      (sum: number, group: { cost_micro: number }) => sum + group.cost_micro,
      0,
    );
    expect(groupSum).toBe(charged);

    const byDay = (await admin(`/api/admin/usage?account=${account.id}&group_by=day`)).json();
    expect(byDay.data).toHaveLength(1);
    expect(byDay.data[0].period).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);

    const csv = await admin(`/api/admin/usage?account=${account.id}&group_by=model&format=csv`);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'model,requests,input_tokens,cached_input_tokens,cache_write_tokens,output_tokens,reasoning_tokens,cost,cost_micro',
    );
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([
      models.chat,
      models.responses,
    ]);
    const csvSum = lines.slice(1).reduce((sum, line) => sum + Number(line.split(',').at(-1)), 0);
    expect(csvSum).toBe(charged);

    // Every account: the other account's call is counted too.
    const everyone = (await admin('/api/admin/usage?group_by=token')).json();
    expect(everyone.data.map((group: { apiKeyId: string }) => group.apiKeyId)).toContain(
      other.apiKeyId,
    );
  });

  it('pages the request log by cursor, newest first, with latency and time to first byte', async () => {
    const { account, ids } = await accountWithCalls();
    const seen: Array<Record<string, unknown>> = [];
    let url = `/api/admin/usage/requests?account=${account.id}&limit=2`;
    for (;;) {
      const page = (await admin(url)).json();
      seen.push(...page.data);
      if (page.next_cursor === null) break;
      url = `/api/admin/usage/requests?account=${account.id}&limit=2&cursor=${page.next_cursor}`;
    }
    expect(seen.map((record) => record.requestId)).toEqual([...ids].reverse());
    for (const record of seen) {
      expect(record).toMatchObject({ surface: 'chat', status: 200, outcome: 'ok' });
      expect(record.firstTokenMs).toEqual(expect.any(Number));
      expect(record.latencyMs as number).toBeGreaterThanOrEqual(record.firstTokenMs as number);
      expect(record.time).toBe(new Date(record.createdAt as number).toISOString());
    }
    const onlyResp = (
      await admin(`/api/admin/usage/requests?account=${account.id}&model=${models.responses}`)
    ).json();
    expect(onlyResp.data.map((record: { requestId: string }) => record.requestId)).toEqual([
      ids[2],
    ]);
  });

  it('tells the operator where a token stands, and gives a client token no account API', async () => {
    const { account, token, apiKeyId } = await accountWithCalls();
    const standing = await admin(`/api/admin/tokens/${apiKeyId}/standing`);
    expect(standing.statusCode).toBe(200);
    const ledger = await bed.gateway.store.ledger.getBalance(account.id);
    expect(standing.json()).toMatchObject({
      account: { id: account.id, name: account.name },
      balance: { balance_micro: ledger.balance, available_micro: ledger.available },
      token: { id: apiKeyId, budget: null, limits: null },
    });
    expect((await admin('/api/admin/tokens/nope/standing')).statusCode).toBe(404);
    // A client token grants the generation API only: no usage, balance or standing of its own.
    for (const url of [
      '/api/usage',
      '/api/usage/requests',
      '/api/balance',
      `/api/admin/usage?account=${account.id}`,
      `/api/admin/tokens/${apiKeyId}/standing`,
    ]) {
      const response = await client(url, token);
      expect([401, 403, 404], url).toContain(response.statusCode);
    }
  });

  it('answers 400 naming the field for a bad period, group or cursor, never 500', async () => {
    const { accountId } = await bed.gateway.createToken({ credits: 1_000 });
    const account = { id: accountId };
    for (const [query, words] of [
      ['from=2026-03-02&to=2026-03-01', '"from" must be before "to"'],
      ['from=yesterday', 'from: "yesterday"'],
      ['group_by=week', 'group_by: unknown week'],
      ['group_by=day,hour', 'day or hour'],
    ]) {
      const response = await admin(`/api/admin/usage?account=${account.id}&${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message).toContain(words);
    }
    for (const query of ['cursor=bm90IGEgY3Vyc29y', 'limit=0', 'limit=501', 'status=abc']) {
      const response = await admin(`/api/admin/usage/requests?account=${account.id}&${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    expect((await admin('/api/admin/usage?account=nobody')).statusCode).toBe(404);
  });
});
