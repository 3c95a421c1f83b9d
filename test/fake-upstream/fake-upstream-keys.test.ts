import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, eventDataOf, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeUpstream } from './fake-upstream-server.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const messageBody = {
  model: 'claude-fake',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello' }],
};
const chatBody = { model: 'gpt-fake', messages: [{ role: 'user', content: 'hello' }] };

function anthropicCall(key: string, body: unknown = messageBody, upstream = fake) {
  return callFakeUpstream(`${upstream.url}/v1/messages`, {
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body,
  });
}

function chatCall(key: string, body: unknown = chatBody, upstream = fake) {
  return callFakeUpstream(`${upstream.url}/v1/chat/completions`, {
    headers: { authorization: `Bearer ${key}` },
    body,
  });
}

describe('the key each request presented', () => {
  it('is read from x-api-key or a Bearer token on Anthropic, only a Bearer token on OpenAI', async () => {
    await anthropicCall('sk-ant-one');
    await callFakeUpstream(`${fake.url}/v1/messages`, {
      headers: { authorization: 'Bearer sk-ant-oauth' },
      body: messageBody,
    });
    await chatCall('sk-openai-one');
    await callFakeUpstream(`${fake.url}/v1/responses`, {
      headers: { authorization: 'Bearer sk-openai-two' },
      body: { model: 'm', input: 'x' },
    });
    await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
      headers: { 'x-api-key': 'not-read-by-openai' },
      body: chatBody,
    });
    await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody });
    expect(fake.requests.map((request) => request.key)).toEqual([
      'sk-ant-one',
      'sk-ant-oauth',
      'sk-openai-one',
      'sk-openai-two',
      undefined,
      undefined,
    ]);
  });

  it('lets a test count calls per key', async () => {
    for (const key of ['sk-a', 'sk-b', 'sk-a', 'sk-a']) await chatCall(key);
    const calls = (key: string) => fake.requests.filter((request) => request.key === key).length;
    expect([calls('sk-a'), calls('sk-b'), calls('sk-c')]).toEqual([3, 1, 0]);
  });
});

describe('a standing rule per key', () => {
  it('answers every request of the key with the error and headers, leaving other keys and the queue alone', async () => {
    fake.behaveForKey('sk-limited', { status: 429, headers: { 'retry-after': '30' } });
    fake.enqueue({ output: [{ text: 'queued for the healthy key' }] });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const limited = await anthropicCall('sk-limited');
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('30');
      expect(limited.headers['request-id']).toBeDefined();
      expect(jsonOf(limited)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    }
    expect(fake.pendingReplies).toBe(1);
    const healthy = await anthropicCall('sk-healthy');
    expect(healthy.status).toBe(200);
    expect(jsonOf(healthy).content[0].text).toBe('queued for the healthy key');
  });

  it('renders the OpenAI error shape on the OpenAI routes', async () => {
    fake.behaveForKey('sk-limited', { status: 429, headers: { 'retry-after-ms': '1500' } });
    const chat = await chatCall('sk-limited');
    expect(chat.status).toBe(429);
    expect(chat.headers['retry-after-ms']).toBe('1500');
    expect(jsonOf(chat).error.code).toBe('rate_limit_exceeded');
    const responses = await callFakeUpstream(`${fake.url}/v1/responses`, {
      headers: { authorization: 'Bearer sk-limited' },
      body: { model: 'm', input: 'x' },
    });
    expect(responses.status).toBe(429);
    expect(jsonOf(responses).error.code).toBe('rate_limit_exceeded');
  });

  it('renders each status with the dialect’s error type', async () => {
    const anthropicTypes: Record<number, string> = {
      401: 'authentication_error',
      402: 'billing_error',
      403: 'permission_error',
      500: 'api_error',
      503: 'api_error',
    };
    for (const [status, type] of Object.entries(anthropicTypes)) {
      fake.behaveForKey('sk-broken', { status: Number(status) });
      const answer = await anthropicCall('sk-broken');
      expect(answer.status).toBe(Number(status));
      expect(jsonOf(answer).error.type).toBe(type);
    }
    fake.behaveForKey('sk-broken', { status: 401 });
    expect(jsonOf(await chatCall('sk-broken')).error.code).toBe('invalid_api_key');
    fake.behaveForKey('sk-broken', { status: 503, errorMessage: 'down for maintenance' });
    const unavailable = await chatCall('sk-broken');
    expect(unavailable.status).toBe(503);
    expect(jsonOf(unavailable).error).toMatchObject({
      type: 'server_error',
      message: 'down for maintenance',
    });
  });

  it('applies to the token-counting and model routes too', async () => {
    fake.behaveForKey('sk-revoked', { status: 403 });
    const count = await callFakeUpstream(`${fake.url}/v1/messages/count_tokens`, {
      headers: { 'x-api-key': 'sk-revoked' },
      body: messageBody,
    });
    expect(count.status).toBe(403);
    const models = await callFakeUpstream(`${fake.url}/v1/models`, {
      method: 'GET',
      headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-revoked' },
    });
    expect(jsonOf(models).error.type).toBe('permission_error');
  });

  it('can be replaced and cleared while the server runs', async () => {
    fake.behaveForKey('sk-flaky', { status: 500 });
    expect((await chatCall('sk-flaky')).status).toBe(500);
    fake.behaveForKey('sk-flaky', { status: 402 });
    expect((await chatCall('sk-flaky')).status).toBe(402);
    fake.clearKeyBehaviour('sk-flaky');
    expect((await chatCall('sk-flaky')).status).toBe(200);
    fake.behaveForKey('sk-flaky', { status: 500 });
    fake.reset();
    expect((await chatCall('sk-flaky')).status).toBe(200);
  });

  it('holds back the usual reply by the delay, a streamed one included', async () => {
    fake.behaveForKey('sk-slow', { delayMs: 150 });
    fake.enqueue({ output: [{ text: 'late' }] }, { output: [{ text: 'late stream' }] });
    let started = performance.now();
    const slow = await anthropicCall('sk-slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(jsonOf(slow).content[0].text).toBe('late');
    started = performance.now();
    const stream = await chatCall('sk-slow', { ...chatBody, stream: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const text = eventDataOf(stream)
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('late stream');
    started = performance.now();
    await chatCall('sk-quick');
    expect(performance.now() - started).toBeLessThan(140);
  });

  it('closes the socket without an answer, after the delay when one is given', async () => {
    fake.behaveForKey('sk-dead', { dropConnection: true });
    await expect(anthropicCall('sk-dead')).rejects.toThrow();
    fake.behaveForKey('sk-dead', { dropConnection: true, delayMs: 100 });
    const started = performance.now();
    await expect(chatCall('sk-dead')).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.every((request) => !request.clientAborted)).toBe(true);
    expect((await chatCall('sk-alive')).status).toBe(200);
  });
});

describe('rate-limit headers per key', () => {
  const at = Date.parse('2026-03-01T12:00:00.000Z');
  let clocked: FakeUpstream;
  beforeAll(async () => {
    clocked = await startFakeUpstream({ now: () => at });
  });
  afterAll(() => clocked.close());
  beforeEach(() => clocked.reset());

  const limits = {
    limitRequests: 50,
    remainingRequests: 49,
    resetRequestsMs: 1000,
    limitTokens: 40_000,
    remainingTokens: 39_000,
    resetTokensMs: 360_000,
  };

  it('sends Anthropic’s names with RFC 3339 reset times', async () => {
    clocked.rateLimitHeadersForKey('sk-a', limits);
    const answer = await anthropicCall('sk-a', messageBody, clocked);
    expect(answer.headers).toMatchObject({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:01.000Z',
      'anthropic-ratelimit-tokens-limit': '40000',
      'anthropic-ratelimit-tokens-remaining': '39000',
      'anthropic-ratelimit-tokens-reset': '2026-03-01T12:06:00.000Z',
    });
    expect(answer.headers['x-ratelimit-remaining-requests']).toBeUndefined();
  });

  it('sends OpenAI’s names with duration resets', async () => {
    clocked.rateLimitHeadersForKey('sk-a', { ...limits, resetRequestsMs: 20 });
    const answer = await chatCall('sk-a', chatBody, clocked);
    expect(answer.headers).toMatchObject({
      'x-ratelimit-limit-requests': '50',
      'x-ratelimit-remaining-requests': '49',
      'x-ratelimit-reset-requests': '20ms',
      'x-ratelimit-limit-tokens': '40000',
      'x-ratelimit-remaining-tokens': '39000',
      'x-ratelimit-reset-tokens': '6m0s',
    });
  });

  it('sends only the fields given, only to that key, on errors too, until stopped', async () => {
    clocked.rateLimitHeadersForKey('sk-a', { remainingRequests: 0, resetRequestsMs: 1000 });
    clocked.behaveForKey('sk-a', { status: 429, headers: { 'retry-after': '1' } });
    const limited = await chatCall('sk-a', chatBody, clocked);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(limited.headers['x-ratelimit-reset-requests']).toBe('1s');
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['x-ratelimit-limit-requests']).toBeUndefined();
    expect(limited.headers['x-ratelimit-remaining-tokens']).toBeUndefined();
    const other = await chatCall('sk-b', chatBody, clocked);
    expect(other.headers['x-ratelimit-remaining-requests']).toBeUndefined();
    clocked.clearKeyBehaviour('sk-a');
    clocked.rateLimitHeadersForKey('sk-a', undefined);
    const stopped = await chatCall('sk-a', chatBody, clocked);
    expect(stopped.headers['x-ratelimit-remaining-requests']).toBeUndefined();
  });
});
