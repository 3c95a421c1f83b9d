import { Readable } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { adminToken, modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface Browser {
  cookie: string;
  csrf: string;
  accountId: string;
}

const chatCall = (token: string) => ({
  method: 'POST' as const,
  url: '/v1/chat/completions',
  headers: { authorization: `Bearer ${token}` },
  payload: { model: 'gpt', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
});

describe('dashboard API: sign-in, sessions, CSRF and the account holder’s routes', () => {
  let clockOffset = 0;
  const bed = useUpstreamTestBed({
    ...modelPerDialect({ chat: 'gpt' }),
    now: () => Date.now() + clockOffset,
  });
  beforeEach(() => bed.fake.reset());
  afterEach(() => {
    clockOffset = 0;
  });

  const admin = (method: Method, url: string, payload?: Record<string, unknown>) =>
    bed.gateway.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(payload !== undefined ? { payload } : {}),
    });

  /** A sign-in link's secret, made by the operator through the admin API. */
  async function linkCode(accountId: string): Promise<string> {
    const created = await admin('POST', `/api/admin/accounts/${accountId}/sign-in-links`);
    expect(created.statusCode, created.body).toBe(201);
    const { url, expires_at: expiresAt } = created.json() as { url: string; expires_at: string };
    expect(url).toMatch(/^http:\/\/localhost:8080\/dashboard\/sign-in#code=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    return new URL(url).hash.slice('#code='.length);
  }

  const exchange = (code: string, headers: Record<string, string> = {}) =>
    bed.gateway.app.inject({
      method: 'POST',
      url: '/api/dashboard/session',
      headers,
      payload: { code },
    });

  async function signIn(options: { isAdmin?: boolean; credits?: number } = {}) {
    const { accountId, token, apiKeyId } = await bed.gateway.createToken({
      credits: options.credits ?? 10_000_000,
      isAdmin: options.isAdmin ?? false,
    });
    const answer = await exchange(await linkCode(accountId));
    expect(answer.statusCode, answer.body).toBe(201);
    const cookie = /^(switchyard_session=[^;]+)/.exec(String(answer.headers['set-cookie']))?.[1];
    const browser: Browser = {
      cookie: cookie as string,
      csrf: answer.json().csrf_token as string,
      accountId,
    };
    return { browser, token, apiKeyId };
  }

  const call = (
    browser: Browser | undefined,
    method: Method,
    url: string,
    options: { payload?: unknown; headers?: Record<string, string>; csrf?: string | null } = {},
  ) =>
    bed.gateway.app.inject({
      method,
      url,
      headers: {
        ...(browser !== undefined ? { cookie: browser.cookie } : {}),
        ...(browser !== undefined && options.csrf !== null && method !== 'GET'
          ? { 'x-csrf-token': options.csrf ?? browser.csrf }
          : {}),
        ...options.headers,
      },
      ...(options.payload !== undefined ? { payload: options.payload as object } : {}),
    });

  it('exchanges a link for an HttpOnly, SameSite=Strict session cookie, once', async () => {
    const { accountId } = await bed.gateway.createToken();
    const code = await linkCode(accountId);
    const answer = await exchange(code, { origin: 'http://localhost:80' });
    expect(answer.statusCode, answer.body).toBe(201);
    const setCookie = String(answer.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^switchyard_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/,
    );
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = answer.json();
    expect(body).toMatchObject({ account: { id: accountId, is_admin: false } });
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(11.9 * 3_600_000);

    const cookie = setCookie.split(';')[0] as string;
    const session = await bed.gateway.app.inject({
      method: 'GET',
      url: '/api/dashboard/session',
      headers: { cookie: `theme=dark; ${cookie}` },
    });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual(body);
    expect(session.headers['cache-control']).toBe('no-store');

    // The store keeps hashes only: neither secret is in it.
    const stored = await bed.gateway.store.dashboardSessions.getSession(
      cookie.slice('switchyard_session='.length),
      Date.now(),
    );
    expect(stored).toBeUndefined();

    const again = await exchange(code);
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toMatchObject({ type: 'dashboard_sign_in_failed' });
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('makes sign-in links for the admin token only, of existing accounts', async () => {
    const { accountId, token } = await bed.gateway.createToken();
    const url = `/api/admin/accounts/${accountId}/sign-in-links`;
    const asClient = await bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(asClient.statusCode).toBe(401);
    const unknown = await admin('POST', '/api/admin/accounts/acct_nobody/sign-in-links');
    expect(unknown.statusCode).toBe(404);
    const byName = await admin('POST', url);
    expect(byName.headers['cache-control']).toBe('no-store');
  });

  it('refuses an expired link, a malformed code and a foreign Origin at sign-in', async () => {
    const { accountId } = await bed.gateway.createToken();
    const expired = await linkCode(accountId);
    clockOffset = 15 * 60_000 + 1000;
    expect((await exchange(expired)).statusCode).toBe(401);
    clockOffset = 0;

    expect((await exchange('not-a-code')).json().error.type).toBe('dashboard_sign_in_failed');

    const code = await linkCode(accountId);
    const foreign = await exchange(code, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.type).toBe('csrf_failed');
    // The refused attempt did not use the link up.
    expect((await exchange(code)).statusCode).toBe(201);
  });

  it('opens nothing to a client token or the admin token, only to the session cookie', async () => {
    const { token } = await bed.gateway.createToken();
    for (const headers of [
      { authorization: `Bearer ${token}` },
      { 'x-api-key': token },
      { authorization: `Bearer ${adminToken}` },
      { cookie: 'switchyard_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    ]) {
      const answer = await bed.gateway.app.inject({
        method: 'GET',
        url: '/api/dashboard/overview',
        headers,
      });
      expect(answer.statusCode).toBe(401);
      expect(answer.json().error).toMatchObject({ type: 'dashboard_unauthorized' });
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('refuses a change without the CSRF token, with a wrong one or from another origin, changing nothing', async () => {
    const { browser, apiKeyId } = await signIn();
    const tokensBefore = (await call(browser, 'GET', '/api/dashboard/tokens')).json().data;

    const missing = await call(browser, 'POST', '/api/dashboard/tokens', {
      payload: { name: 'sneaky' },
      csrf: null,
    });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().error.type).toBe('csrf_failed');
    const wrong = await call(browser, 'PATCH', `/api/dashboard/tokens/${apiKeyId}`, {
      payload: { name: 'renamed' },
      csrf: `${browser.csrf.slice(0, -1)}x`,
    });
    expect(wrong.statusCode).toBe(403);
    const foreign = await call(browser, 'DELETE', `/api/dashboard/tokens/${apiKeyId}`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.type).toBe('csrf_failed');
    const signOut = await call(browser, 'POST', '/api/dashboard/sign-out', { csrf: null });
    expect(signOut.statusCode).toBe(403);

    expect((await call(browser, 'GET', '/api/dashboard/tokens')).json().data).toEqual(tokensBefore);
    expect((await call(browser, 'GET', '/api/dashboard/session')).statusCode).toBe(200);

    const ownOrigin = await call(browser, 'PATCH', `/api/dashboard/tokens/${apiKeyId}`, {
      payload: { name: 'renamed' },
      headers: { origin: 'http://localhost:80' },
    });
    expect(ownOrigin.statusCode, ownOrigin.body).toBe(200);
    expect(ownOrigin.json().name).toBe('renamed');
  });

  it('shows a new token’s secret once, never in the list, and hides other accounts’ tokens', async () => {
    const { browser } = await signIn();
    const created = await call(browser, 'POST', '/api/dashboard/tokens', {
      payload: { name: 'laptop', budget: { amount: '2.5', period: 'daily' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token: secret, api_key: apiKey } = created.json();
    expect(secret).toMatch(/^sy_/);
    expect(apiKey).toMatchObject({ name: 'laptop', accountId: browser.accountId });
    expect(apiKey).not.toHaveProperty('hash');

    const list = await call(browser, 'GET', '/api/dashboard/tokens');
    expect(list.body).not.toContain(secret);
    expect(list.body).not.toContain('"hash"');
    const listed = list.json().data.find((item: { id: string }) => item.id === apiKey.id);
    expect(listed).not.toHaveProperty('token');
    expect(listed.budget_standing).toMatchObject({
      period: 'daily',
      amount_micro: 2_500_000,
      spent_micro: 0,
      remaining_micro: 2_500_000,
    });

    const rotated = await call(browser, 'POST', `/api/dashboard/tokens/${apiKey.id}/rotate`);
    expect(rotated.statusCode).toBe(201);
    expect(rotated.json().token).not.toBe(secret);

    const other = await signIn();
    const foreignId = apiKey.id as string;
    for (const [method, url, payload] of [
      ['PATCH', `/api/dashboard/tokens/${foreignId}`, { name: 'mine now' }],
      ['POST', `/api/dashboard/tokens/${foreignId}/rotate`, undefined],
      ['DELETE', `/api/dashboard/tokens/${foreignId}`, undefined],
    ] as const) {
      const answer = await call(other.browser, method, url, { payload });
      expect(answer.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call(other.browser, 'GET', '/api/dashboard/tokens')).body).not.toContain(
      foreignId,
    );
    expect((await bed.gateway.store.apiKeys.getApiKey(foreignId))?.name).toBe('laptop');

    const deleted = await call(browser, 'DELETE', `/api/dashboard/tokens/${foreignId}`);
    expect(deleted.statusCode).toBe(200);
    expect(await bed.gateway.store.apiKeys.getApiKey(foreignId)).toBeUndefined();
  });

  it('sets a budget by PATCH that the next generation call meets with 402 budget_exceeded, and disables and enables the token', async () => {
    const { browser, token, apiKeyId } = await signIn();
    bed.fake.enqueue({ output: [{ text: 'ok' }], usage: { input: 10, output: 5 } });
    expect((await bed.gateway.app.inject(chatCall(token))).statusCode).toBe(200);

    const patched = await call(browser, 'PATCH', `/api/dashboard/tokens/${apiKeyId}`, {
      payload: { budget: { amount: '0.000001', period: 'daily' } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().budget).toEqual({ amount: 1, period: 'daily' });
    const refused = await bed.gateway.app.inject(chatCall(token));
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.code).toBe('budget_exceeded');

    const disabled = await call(browser, 'PATCH', `/api/dashboard/tokens/${apiKeyId}`, {
      payload: { disabled: true },
    });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().disabledAt).not.toBeNull();
    expect((await bed.gateway.app.inject(chatCall(token))).statusCode).toBe(401);
    const enabled = await call(browser, 'PATCH', `/api/dashboard/tokens/${apiKeyId}`, {
      payload: { disabled: false, budget: null },
    });
    expect(enabled.json()).toMatchObject({ disabledAt: null, budget: null });
    bed.fake.enqueue({ output: [{ text: 'ok' }], usage: { input: 10, output: 5 } });
    expect((await bed.gateway.app.inject(chatCall(token))).statusCode).toBe(200);
  });

  it('reports usage whose figures equal the ledger’s charges for the same period', async () => {
    const { browser, token } = await signIn();
    const { accountId } = browser;
    const from = new Date(Date.now() - 1000).toISOString();
    for (const usage of [
      { input: 100, output: 40 },
      { input: 7, output: 300 },
    ]) {
      bed.fake.enqueue({ output: [{ text: 'ok' }], usage });
      expect((await bed.gateway.app.inject(chatCall(token))).statusCode).toBe(200);
    }
    // Settlements may trail the answers.
    let charges: number[] = [];
    for (let attempt = 0; attempt < 100 && charges.length < 2; attempt += 1) {
      const entries = await bed.gateway.store.ledger.listEntries(accountId, 50);
      charges = entries.filter((entry) => entry.kind === 'usage').map((entry) => -entry.amount);
      if (charges.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(charges).toHaveLength(2);
    const charged = charges.reduce((total, amount) => total + amount, 0);
    expect(charged).toBeGreaterThan(0);
    const to = new Date(Date.now() + 1000).toISOString();

    const report = await call(
      browser,
      'GET',
      `/api/dashboard/usage?from=${from}&to=${to}&group_by=model`,
    );
    expect(report.statusCode, report.body).toBe(200);
    expect(report.json().totals).toMatchObject({ requests: 2, cost_micro: charged });
    expect(report.json().data).toEqual([
      expect.objectContaining({ model: 'gpt', requests: 2, cost_micro: charged }),
    ]);
    const csv = await call(browser, 'GET', `/api/dashboard/usage?from=${from}&to=${to}&format=csv`);
    expect(csv.headers['content-type']).toContain('text/csv');

    const overview = (await call(browser, 'GET', '/api/dashboard/overview')).json();
    expect(overview).toMatchObject({
      account: { id: accountId },
      tokens: 1,
      spend_today_micro: charged,
      balance: { balance_micro: 10_000_000 - charged },
    });

    const requests = await call(browser, 'GET', '/api/dashboard/requests?limit=1');
    expect(requests.json().data).toHaveLength(1);
    expect(requests.json().next_cursor).toEqual(expect.any(String));

    // Another account's report is empty: the account is the session's, whatever is asked.
    const other = await signIn();
    const theirs = await call(other.browser, 'GET', `/api/dashboard/usage?from=${from}&to=${to}`);
    expect(theirs.json().totals).toMatchObject({ requests: 0, cost_micro: 0 });
    const forced = await call(other.browser, 'GET', `/api/dashboard/usage?account=${accountId}`);
    expect(forced.statusCode).toBe(400);
  });

  it('serves the account’s stored files and answers another account’s as unknown', async () => {
    const { browser } = await signIn();
    const other = await signIn();
    const asset = await bed.gateway.storage.storeAsset({
      accountId: browser.accountId,
      name: 'notes.txt',
      contentType: 'text/plain',
      source: 'transcription_upload',
      body: Readable.from([Buffer.from('hello')]),
    });
    const listed = await call(browser, 'GET', '/api/dashboard/storage/assets');
    expect(listed.json().data.map((item: { id: string }) => item.id)).toEqual([asset.id]);
    const content = await call(browser, 'GET', `/api/dashboard/storage/assets/${asset.id}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.body).toBe('hello');
    expect(content.headers['cache-control']).toBe('no-store');
    expect((await call(browser, 'GET', '/api/dashboard/storage')).json()).toMatchObject({
      file_count: 1,
      used_bytes: 5,
    });

    const theirs = `/api/dashboard/storage/assets/${asset.id}`;
    expect((await call(other.browser, 'GET', `${theirs}/content`)).statusCode).toBe(404);
    expect((await call(other.browser, 'DELETE', theirs)).statusCode).toBe(404);
    expect((await call(browser, 'DELETE', theirs)).statusCode).toBe(204);
  });

  it('keeps the operator routes to admin accounts', async () => {
    const { browser } = await signIn();
    for (const url of [
      '/api/dashboard/admin/accounts',
      '/api/dashboard/admin/tokens',
      '/api/dashboard/admin/usage',
      '/api/dashboard/admin/routing',
      '/api/dashboard/admin/metrics',
      `/api/dashboard/admin/accounts/${browser.accountId}/ledger`,
    ]) {
      const answer = await call(browser, 'GET', url);
      expect(answer.statusCode, url).toBe(403);
      expect(answer.json().error.type).toBe('dashboard_forbidden');
    }
    const grant = await call(
      browser,
      'POST',
      `/api/dashboard/admin/accounts/${browser.accountId}/credits`,
      { payload: { kind: 'grant', amount: '1000', reason: 'myself' } },
    );
    expect(grant.statusCode).toBe(403);
    expect((await bed.gateway.store.ledger.getBalance(browser.accountId)).balance).toBe(10_000_000);
  });

  it('gives an admin account the operator’s views and credit changes', async () => {
    const { browser: operator } = await signIn({ isAdmin: true });
    const { browser: holder, apiKeyId } = await signIn();

    const accounts = await call(
      operator,
      'GET',
      `/api/dashboard/admin/accounts?q=${holder.accountId}`,
    );
    expect(accounts.json().data).toEqual([
      expect.objectContaining({
        id: holder.accountId,
        is_admin: false,
        balance: expect.objectContaining({ balance_micro: 10_000_000 }),
      }),
    ]);

    const grant = await call(
      operator,
      'POST',
      `/api/dashboard/admin/accounts/${holder.accountId}/credits`,
      { payload: { kind: 'grant', amount: '2.5', reason: 'goodwill' } },
    );
    expect(grant.statusCode, grant.body).toBe(201);
    expect(grant.json()).toMatchObject({
      kind: 'grant',
      amount: '2.500000',
      amount_micro: 2_500_000,
      reason: 'goodwill',
      balance: { balance_micro: 12_500_000 },
    });
    const adjust = await call(
      operator,
      'POST',
      `/api/dashboard/admin/accounts/${holder.accountId}/credits`,
      { payload: { kind: 'adjust', amount: '-0.5', reason: 'correction' } },
    );
    expect(adjust.json()).toMatchObject({ kind: 'adjustment', amount_micro: -500_000 });
    const blank = await call(
      operator,
      'POST',
      `/api/dashboard/admin/accounts/${holder.accountId}/credits`,
      { payload: { kind: 'grant', amount: '1', reason: '   ' } },
    );
    expect(blank.statusCode).toBe(400);

    const ledger = await call(
      operator,
      'GET',
      `/api/dashboard/admin/accounts/${holder.accountId}/ledger?limit=2`,
    );
    expect(ledger.json().data.map((entry: { reason: string }) => entry.reason)).toEqual([
      'correction',
      'goodwill',
    ]);

    const tokens = await call(operator, 'GET', `/api/dashboard/admin/tokens?q=${apiKeyId}`);
    expect(tokens.json().data).toEqual([expect.objectContaining({ id: apiKeyId })]);
    expect(tokens.body).not.toContain('"hash"');

    const routing = await call(operator, 'GET', '/api/dashboard/admin/routing');
    const adminRouting = await admin('GET', '/api/admin/routing');
    expect(routing.statusCode).toBe(200);
    expect(Object.keys(routing.json())).toEqual(Object.keys(adminRouting.json()));

    const metrics = await call(operator, 'GET', '/api/dashboard/admin/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.json()).toMatchObject({
      requests: expect.objectContaining({ '2xx': expect.any(Number) }),
      tokens: { input: expect.any(Number), cached: expect.any(Number), output: expect.any(Number) },
      cost_micro: expect.any(Number),
      in_flight: 0,
    });
    expect(metrics.json().rss_bytes).toBeGreaterThan(0);

    const usage = await call(
      operator,
      'GET',
      `/api/dashboard/admin/usage?account=${holder.accountId}`,
    );
    expect(usage.statusCode).toBe(200);
  });

  it('signs out: the cookie is cleared and stops working', async () => {
    const { browser } = await signIn();
    const out = await call(browser, 'POST', '/api/dashboard/sign-out');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^switchyard_session=; .*Max-Age=0/);
    const after = await call(browser, 'GET', '/api/dashboard/session');
    expect(after.statusCode).toBe(401);
    expect(after.json().error.type).toBe('dashboard_unauthorized');
  });

  it('ends a session after 12 hours', async () => {
    const { browser } = await signIn();
    clockOffset = 12 * 3_600_000 + 1000;
    expect((await call(browser, 'GET', '/api/dashboard/session')).statusCode).toBe(401);
  });

  it('leaves the dashboard routes out of the OpenAPI document, and image jobs out when images are not configured', async () => {
    const document = (await bed.gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).filter((path) => path.includes('dashboard'))).toEqual([]);
    const { browser } = await signIn();
    expect((await call(browser, 'GET', '/api/dashboard/image-jobs')).statusCode).toBe(404);
  });
});
