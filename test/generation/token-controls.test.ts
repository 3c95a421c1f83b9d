import { beforeEach, describe, expect, it } from 'vitest';

import { adminToken, modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

const models = { anthropic: 'claude', chat: 'gpt', responses: 'resp' } as const;

type Surface = 'messages' | 'chat' | 'responses';

/** One user turn in each client dialect, on the model that speaks it upstream. */
function requestOf(surface: Surface, token: string) {
  if (surface === 'messages') {
    return {
      url: '/v1/messages',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      payload: {
        model: models.anthropic,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
      },
    };
  }
  if (surface === 'chat') {
    return {
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
      payload: { model: models.chat, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    };
  }
  return {
    url: '/v1/responses',
    headers: { authorization: `Bearer ${token}` },
    payload: { model: models.responses, max_output_tokens: 64, input: 'hi' },
  };
}

describe('per-token controls: budget, limits, rename, rotate, delete', () => {
  const bed = useUpstreamTestBed({ ...modelPerDialect(models), listen: true });
  beforeEach(() => bed.fake.reset());

  const admin = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ) =>
    bed.gateway.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(payload !== undefined ? { payload } : {}),
    });
  const ask = (surface: Surface, token: string) =>
    bed.gateway.app.inject({ method: 'POST', ...requestOf(surface, token) });

  /** The worst case one call of `requestOf` holds: what a budget of 1 micro-credit refuses. */
  async function holdOfOneCall(apiKeyId: string, token: string): Promise<number> {
    await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, {
      budget: { amount: '0.000001', period: 'daily' },
    });
    const refused = await ask('chat', token);
    expect(refused.statusCode).toBe(402);
    return refused.json().error.details.required_micro as number;
  }

  it('refuses a call past the budget with 402 budget_exceeded in each dialect’s shape', async () => {
    const { token, apiKeyId, accountId } = await bed.gateway.createToken({ credits: 50_000_000 });
    const hold = await holdOfOneCall(apiKeyId, token);
    // Room for one call's hold, not two.
    const patched = await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, {
      budget: { amount: String((hold * 1.5) / 1e6), period: 'monthly' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().budget).toEqual({ amount: Math.round(hold * 1.5), period: 'monthly' });
    bed.fake.enqueue({ output: [{ text: 'ok' }], usage: { input: 10, output: 60 } });
    expect((await ask('chat', token)).statusCode).toBe(200);

    const chat = await ask('chat', token);
    expect(chat.statusCode).toBe(402);
    expect(chat.json()).toMatchObject({
      error: { type: 'billing_error', code: 'budget_exceeded' },
    });
    expect(chat.json().error.message).toMatch(/monthly budget of 0\.\d{6} credits/);
    expect(chat.json().error.details).toMatchObject({
      budget_period: 'monthly',
      required_micro: hold,
    });
    const responses = await ask('responses', token);
    expect(responses.statusCode).toBe(402);
    expect(responses.json().error.code).toBe('budget_exceeded');
    const messages = await ask('messages', token);
    expect(messages.statusCode).toBe(402);
    expect(messages.json()).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect(messages.json().error.message).toContain("This token's monthly budget");

    // The balance would pay: only the budget stands in the way, and the operator's view shows it.
    const balance = (await admin('GET', `/api/admin/tokens/${apiKeyId}/standing`)).json();
    const [record] = await bed.gateway.store.usage
      .listRequests({
        accountId,
        from: 0,
        to: Date.now() + 1,
        status: 200,
        limit: 1,
      })
      .then((page) => page.records);
    expect(balance.token.budget).toMatchObject({
      period: 'monthly',
      spent_micro: record?.cost,
      remaining_micro: Math.round(hold * 1.5) - (record?.cost as number),
    });

    // Lifting the budget lets the token call again at once.
    await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, { budget: null });
    expect((await ask('chat', token)).statusCode).toBe(200);
  });

  it('lets concurrent calls hold no more than the budget between them', async () => {
    const { token, apiKeyId } = await bed.gateway.createToken({ credits: 50_000_000 });
    const hold = await holdOfOneCall(apiKeyId, token);
    await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, {
      budget: { amount: String((hold * 2.5) / 1e6), period: 'daily' },
    });
    for (let index = 0; index < 8; index += 1) {
      bed.fake.enqueue({
        output: [{ text: 'ok' }],
        usage: { input: 10, output: 60 },
        delayMs: 150,
      });
    }
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask('chat', token)));
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
  });

  it('applies a token’s own rate limits in place of the configured ones', async () => {
    const { token, apiKeyId } = await bed.gateway.createToken({ credits: 50_000_000 });
    await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, { limits: { requestsPerMinute: 1 } });
    expect((await ask('chat', token)).statusCode).toBe(200);
    const limited = await ask('chat', token);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['x-ratelimit-limit-requests']).toBe('1');
    const bad = await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, {
      limits: { requestsPerMinute: 0 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('creates a token with a budget and limits of its own', async () => {
    const account = (await admin('POST', '/api/admin/accounts', { name: 'budgeted' })).json();
    const created = await admin('POST', '/api/admin/accounts/budgeted/tokens', {
      name: 'capped',
      budget: { amount: '2.5', period: 'weekly' },
      limits: { concurrentRequests: 3 },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().api_key).toMatchObject({
      accountId: account.id,
      budget: { amount: 2_500_000, period: 'weekly' },
      limits: { concurrentRequests: 3 },
    });
    const refused = await admin('POST', '/api/admin/accounts/budgeted/tokens', {
      name: 'bad',
      budget: { amount: '0', period: 'weekly' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain('budget.amount');
  });

  it('renames and rotates a token, keeping its settings, and the old secret stops working', async () => {
    const { token, apiKeyId } = await bed.gateway.createToken({
      credits: 50_000_000,
      allowedModels: [models.chat],
    });
    expect((await ask('chat', token)).statusCode).toBe(200);
    const renamed = await admin('PATCH', `/api/admin/tokens/${apiKeyId}`, { name: 'ci runner' });
    expect(renamed.json()).toMatchObject({ id: apiKeyId, name: 'ci runner' });

    const rotated = await admin('POST', `/api/admin/tokens/${apiKeyId}/rotate`);
    expect(rotated.statusCode).toBe(201);
    const { token: fresh, api_key: apiKey } = rotated.json();
    expect(fresh).not.toBe(token);
    expect(apiKey).toMatchObject({ id: apiKeyId, name: 'ci runner', allowedModels: [models.chat] });
    expect(apiKey).not.toHaveProperty('hash');

    const old = await ask('chat', token);
    expect(old.statusCode).toBe(401);
    expect(old.json().error.code).toBe('invalid_token');
    expect((await ask('chat', fresh)).statusCode).toBe(200);
    // The settings came along: the model the token may not use stays refused.
    expect((await ask('responses', fresh)).json().error.code).toBe('model_not_allowed');
  });

  it('deletes a token: it stops working, its usage stays, and a second delete is 404', async () => {
    const { token, apiKeyId, accountId } = await bed.gateway.createToken({ credits: 50_000_000 });
    expect((await ask('chat', token)).statusCode).toBe(200);
    const deleted = await admin('DELETE', `/api/admin/tokens/${apiKeyId}`);
    expect(deleted.json()).toMatchObject({ deleted: true, api_key: { id: apiKeyId } });
    expect((await ask('chat', token)).statusCode).toBe(401);
    expect((await admin('DELETE', `/api/admin/tokens/${apiKeyId}`)).statusCode).toBe(404);
    const usage = (
      await admin(`GET`, `/api/admin/usage?account=${accountId}&group_by=token`)
    ).json();
    expect(usage.data.map((group: { apiKeyId: string }) => group.apiKeyId)).toEqual([apiKeyId]);
  });

  it('keeps account names unique and takes a name wherever an account id goes', async () => {
    const created = await admin('POST', '/api/admin/accounts', { name: 'Acme Labs' });
    expect(created.statusCode).toBe(201);
    const again = await admin('POST', '/api/admin/accounts', { name: 'Acme Labs' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toContain('names are unique');
    const granted = await admin('POST', '/api/admin/accounts/Acme%20Labs/credits', {
      amount: '3',
      reason: 'trial',
    });
    expect(granted.statusCode, granted.body).toBe(201);
    expect(granted.json().entry.accountId).toBe(created.json().id);
    const token = await admin('POST', '/api/admin/accounts/Acme%20Labs/tokens', { name: 't' });
    expect(token.json().api_key.accountId).toBe(created.json().id);
    const listed = (await admin('GET', '/api/admin/tokens?account_id=Acme%20Labs')).json();
    expect(listed.data).toHaveLength(1);
    const shown = (await admin('GET', '/api/admin/accounts/Acme%20Labs')).json();
    expect(shown.balance.balance_micro).toBe(3_000_000);
  });
});
