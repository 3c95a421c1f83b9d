import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

describe('admin API under /api/admin: the operator commands over HTTP', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => gateway.close());

  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    gateway.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(payload ? { payload } : {}),
    });

  it('refuses requests without the admin credential, and client tokens in its place', async () => {
    expect(
      (await gateway.app.inject({ method: 'GET', url: '/api/admin/accounts' })).statusCode,
    ).toBe(401);
    const { token } = await gateway.createToken();
    const withClientToken = await gateway.app.inject({
      method: 'GET',
      url: '/api/admin/accounts',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(withClientToken.statusCode).toBe(401);
  });

  it('refuses, writing nothing, an amount not kept exactly or an adjustment below zero without allow_negative', async () => {
    const account = (await admin('POST', '/api/admin/accounts', { name: 'edge' })).json();
    const credits = `/api/admin/accounts/${account.id}/credits`;
    // 2^53 micro-credits and more: no number holds them exactly.
    const huge = await admin('POST', credits, { amount: '9007199254.740993', reason: 'x' });
    expect(huge.statusCode).toBe(400);
    expect(huge.json().error.type).toBe('invalid_request_error');
    expect(await gateway.store.ledger.listEntries(account.id, 10)).toEqual([]);

    expect((await admin('POST', credits, { amount: '9007199254', reason: 'x' })).statusCode).toBe(
      201,
    );
    // Each fits, the sum would not: refused, and a retry cannot grant twice.
    const past = await admin('POST', credits, { amount: '1', reason: 'x' });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.message).toContain('nothing was changed');
    expect(await gateway.store.ledger.listEntries(account.id, 10)).toHaveLength(1);
    expect(
      (await admin('POST', credits, { amount: '-9007199254', reason: 'reset' })).statusCode,
    ).toBe(201);

    expect((await admin('POST', credits, { amount: '2', reason: 'grant' })).statusCode).toBe(201);
    const below = await admin('POST', credits, { amount: '-3', reason: 'claw back' });
    expect(below.statusCode).toBe(400);
    expect(below.json().error.message).toContain('allow_negative');
    expect((await gateway.store.ledger.getBalance(account.id)).balance).toBe(2_000_000);
    const allowed = await admin('POST', credits, {
      amount: '-3',
      reason: 'claw back',
      allow_negative: true,
    });
    expect(allowed.statusCode).toBe(201);
    expect(allowed.json().balance.balance).toBe('-1.000000');
  });

  it('creates an account, grants and adjusts credits, issues a token that works, lists and disables it', async () => {
    const account = (await admin('POST', '/api/admin/accounts', { name: 'acme' })).json();
    expect(account.id).toMatch(/^acct_/);

    const grant = await admin('POST', `/api/admin/accounts/${account.id}/credits`, {
      amount: '12.5',
      reason: 'welcome',
    });
    expect(grant.statusCode).toBe(201);
    expect(grant.json().balance.balance).toBe('12.500000');
    const adjust = await admin('POST', `/api/admin/accounts/${account.id}/credits`, {
      amount: '-0.000001',
      reason: 'rounding fix',
    });
    expect(adjust.json().entry.kind).toBe('adjustment');
    expect(adjust.json().balance.balance).toBe('12.499999');
    expect(adjust.json().entry).toMatchObject({ amount: '-0.000001', amount_micro: -1 });
    const noReason = await admin('POST', `/api/admin/accounts/${account.id}/credits`, {
      amount: '1',
      reason: ' ',
    });
    expect(noReason.statusCode).toBe(400);

    const created = await admin('POST', `/api/admin/accounts/${account.id}/tokens`, {
      name: 'ci',
      permissions: ['model:read'],
    });
    expect(created.statusCode).toBe(201);
    const { token, api_key: apiKey } = created.json();
    expect(token).toMatch(/^sy_/);
    expect(apiKey.hash).toBeUndefined();
    expect(
      (
        await gateway.app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: { 'x-api-key': token },
        })
      ).statusCode,
    ).toBe(200);

    const listed = (await admin('GET', `/api/admin/tokens?account_id=${account.id}`)).json().data;
    expect(listed.map((item: { id: string }) => item.id)).toEqual([apiKey.id]);
    expect(JSON.stringify(listed)).not.toContain(token);

    expect(
      (await admin('POST', `/api/admin/tokens/${apiKey.id}/disable`)).json().disabledAt,
    ).toEqual(expect.any(Number));
    expect(
      (
        await gateway.app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: { 'x-api-key': token },
        })
      ).statusCode,
    ).toBe(401);

    const summary = (await admin('GET', `/api/admin/accounts/${account.id}`)).json();
    expect(summary.balance.balance_micro).toBe(12_499_999);
    expect(summary.ledger.map((entry: { reason: string }) => entry.reason)).toEqual([
      'rounding fix',
      'welcome',
    ]);
  });

  it('rejects unknown permissions and connected tokens for non-admin accounts', async () => {
    const account = (await admin('POST', '/api/admin/accounts', { name: 'b' })).json();
    const unknown = await admin('POST', `/api/admin/accounts/${account.id}/tokens`, {
      name: 'x',
      permissions: ['root'],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('root');
    const connected = await admin('POST', `/api/admin/accounts/${account.id}/tokens`, {
      name: 'x',
      interface: 'connected',
    });
    expect(connected.statusCode).toBe(400);
  });

  it('answers 404 for an unknown account', async () => {
    expect((await admin('GET', '/api/admin/accounts/acct_missing')).statusCode).toBe(404);
  });
});
