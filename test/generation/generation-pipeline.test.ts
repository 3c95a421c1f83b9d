import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  startTestGateway,
  startUpstreamTestBed,
  testModel,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

const messagesBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 100,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
  ...extra,
});

describe('the generation pipeline around the codecs', () => {
  let bed: UpstreamTestBed;
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: {
        anthropic: { kind: 'anthropic' },
        chat: { kind: 'openai-chat' },
        dead: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', connectTimeoutMs: 500 },
      },
      models: [
        testModel('claude', 'anthropic'),
        testModel('blind', 'anthropic', {
          capabilities: {
            streaming: true,
            tools: true,
            vision: false,
            reasoning: false,
            promptCache: true,
          },
        }),
        testModel('gpt', 'chat'),
        testModel('fallback', 'anthropic', {
          deployments: [
            { provider: 'dead', upstreamModel: 'never' },
            { provider: 'anthropic', upstreamModel: 'second' },
          ],
        }),
        testModel('lenient', 'chat', { ignoreFields: ['context_management'] }),
      ],
      config: { limits: { token: { requestsPerMinute: 1000 } } },
    });
    ({ fake: upstream, gateway } = bed);
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => upstream.reset());

  const post = (
    token: string,
    body: unknown,
    headers: Record<string, string> = {},
    url = '/v1/messages',
  ) =>
    gateway.app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': token, ...headers },
      payload: body as object,
    });

  it('answers 402 in shape B when the balance cannot cover the hold, and records the refusal', async () => {
    const { token, accountId } = await gateway.createToken({ credits: 1 });
    const response = await post(token, messagesBody('claude'));
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect(upstream.requests).toHaveLength(0);
    const [record] = await gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({
      outcome: 'refused',
      status: 402,
      cost: 0,
      requestId: response.headers['request-id'],
    });
  });

  it('never overspends under concurrent requests', async () => {
    // Each hold: a few dozen input tokens (the prompt's bytes and framing) × 6 µ + 100 output ×
    // 15 µ ≈ 1 700 µ, each call 1 560 µ: 4 000 µ covers 2.
    const { token, accountId } = await gateway.createToken({ credits: 4_000 });
    upstream.enqueue(
      ...Array.from({ length: 10 }, () => ({
        output: [{ text: 'ok' }],
        usage: { input: 10, output: 100 },
        delayMs: 50,
      })),
    );
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => post(token, messagesBody('claude'))),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
    const balance = await gateway.store.ledger.getBalance(accountId);
    expect(balance.balance).toBeGreaterThanOrEqual(0);
    expect(balance.held).toBe(0);
  });

  it('refuses with 429 and an integer retry-after when the token limit is reached', async () => {
    const limited = await startTestGateway({
      providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
      models: [testModel('claude', 'anthropic')],
      limits: { token: { requestsPerMinute: 2 } },
    });
    try {
      const { token } = await limited.createToken({ credits: 10_000_000 });
      const send = () =>
        limited.app.inject({
          method: 'POST',
          url: '/v1/messages',
          headers: { 'x-api-key': token },
          payload: messagesBody('claude'),
        });
      expect((await send()).statusCode).toBe(200);
      expect((await send()).statusCode).toBe(200);
      const refused = await send();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.type).toBe('rate_limit_error');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(Number(refused.headers['retry-after']))).toBe(true);
    } finally {
      await limited.close();
    }
  });

  it('adds one five-minute cache marker by default, none with off, and refuses other values', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    expect((await post(token, messagesBody('claude'))).statusCode).toBe(200);
    expect(upstream.requests[0]?.rawBody).toContain('"cache_control":{"type":"ephemeral"}');
    upstream.reset();
    expect(
      (await post(token, messagesBody('claude'), { 'x-switchyard-prompt-cache': 'off' }))
        .statusCode,
    ).toBe(200);
    expect(upstream.requests[0]?.rawBody).not.toContain('cache_control');
    upstream.reset();
    const clientMarker = messagesBody('claude', {
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
    });
    expect((await post(token, clientMarker, { 'x-router-prompt-cache': 'off' })).statusCode).toBe(
      200,
    );
    expect(upstream.requests[0]?.rawBody).toContain('"ttl":"1h"');
    const bad = await post(token, messagesBody('claude'), {
      'x-switchyard-prompt-cache': 'always',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().type).toBe('error');
  });

  it('forwards the client version and beta headers to a message-style upstream, never its token', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    await post(token, messagesBody('claude'), {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
    });
    const headers = upstream.requests[0]?.headers ?? {};
    expect(headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(JSON.stringify(headers)).not.toContain(token);
  });

  it('refuses image input to a model without vision, naming the capability', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    const body = messagesBody('blind', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
      ],
    });
    const response = await post(token, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('image input');
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers an unknown model with 400 and a model outside the token’s list with 401', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000, allowedModels: ['gpt'] });
    expect((await post(token, messagesBody('nope'))).statusCode).toBe(400);
    const denied = await post(token, messagesBody('claude'));
    expect(denied.statusCode).toBe(401);
  });

  it('refuses a field the route cannot represent with 400 naming path, model and route', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    const response = await post(token, messagesBody('gpt', { top_k: 5 }));
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.error.message).toContain('gpt');
    // The client's own field name, not the canonical one.
    expect(body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual([
      'top_k',
    ]);
    expect(body.error.message).toContain('top_k');
    expect(upstream.requests).toHaveLength(0);
  });

  it('lets an operator allow a named field to be ignored, and says so in a header', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    const response = await post(
      token,
      messagesBody('lenient', {
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-switchyard-ignored-fields']).toContain('context_management');
  });

  it('falls back to the next deployment when the first cannot be reached', async () => {
    const { token, accountId } = await gateway.createToken({ credits: 10_000_000 });
    // An escaped slash: the client's own spelling, which only a copy of its text keeps.
    const text = JSON.stringify(messagesBody('fallback')).replace('Hello there', 'Hello\\/there');
    const response = await post(token, text, { 'content-type': 'application/json' });
    expect(response.statusCode, response.body).toBe(200);
    expect(upstream.requests[0]?.body).toMatchObject({ model: 'second' });
    // The second attempt still writes its edit from the client's text.
    expect(upstream.requests[0]?.rawBody).toContain('Hello\\/there');
    const [record] = await gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({ deployment: 'anthropic/second', outcome: 'ok' });
  });

  it('aborts the upstream when the client disconnects and bills only what was delivered', async () => {
    const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { token, accountId } = await gateway.createToken({ credits: 10_000_000 });
    upstream.enqueue({
      output: [{ text: 'word '.repeat(200) }],
      usage: { input: 50, output: 400 },
      chunkDelayMs: 20,
    });
    const controller = new AbortController();
    const response = await request(`${address}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify(messagesBody('claude', { stream: true })),
      signal: controller.signal,
    });
    let received = 0;
    try {
      for await (const chunk of response.body) {
        received += chunk.length;
        if (received > 300) controller.abort();
      }
    } catch {
      // The abort ends the read.
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(upstream.requests[0]?.clientAborted).toBe(true);
    const [record] = await gateway.store.usage.listUsage(accountId, 1);
    expect(record?.outcome).toBe('cancelled');
    const balance = await gateway.store.ledger.getBalance(accountId);
    expect(balance.held).toBe(0);
    // Charged for the prompt it was told about, never the whole scripted answer.
    expect(record?.cost).toBeLessThan(50 * 3 + 400 * 15);
  });
});
