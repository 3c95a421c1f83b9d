import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatCredits } from '../../src/billing/micro-credits.ts';
import { parseResetDuration } from '../../src/routing/read-rate-limit-headers.ts';
import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

const models = { anthropic: 'claude', chat: 'gpt', responses: 'resp' } as const;

type Surface = 'messages' | 'chat' | 'responses';

/** One user turn in each client dialect, on the model that speaks it upstream. */
function requestOf(surface: Surface, token: string, options: { stream?: boolean; model?: string }) {
  const stream = options.stream === true ? { stream: true } : {};
  if (surface === 'messages') {
    return {
      url: '/v1/messages',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      payload: {
        model: options.model ?? models.anthropic,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        ...stream,
      },
    };
  }
  if (surface === 'chat') {
    return {
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        model: options.model ?? models.chat,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        ...stream,
      },
    };
  }
  return {
    url: '/v1/responses',
    headers: { authorization: `Bearer ${token}` },
    payload: {
      model: options.model ?? models.responses,
      max_output_tokens: 64,
      input: 'hi',
      ...stream,
    },
  };
}

const rateLimitHeaderNames = ['requests', 'tokens'].flatMap((kind) =>
  ['limit', 'remaining', 'reset'].map((part) => `x-ratelimit-${part}-${kind}`),
);

/** A reset header, read as OpenAI-style clients read it: within the one-minute window. */
function resetMs(value: unknown): number {
  const ms = parseResetDuration(String(value));
  expect(ms, `reset ${String(value)}`).toBeDefined();
  expect(ms).toBeGreaterThan(0);
  expect(ms).toBeLessThanOrEqual(60_000);
  return ms as number;
}

describe('rate-limit headers on generation answers', () => {
  const bed = useUpstreamTestBed({
    ...modelPerDialect(models),
    listen: true,
    config: {
      // The account's request limit is the tighter one; only the token limits tokens.
      limits: {
        token: { requestsPerMinute: 50, tokensPerMinute: 1_000_000 },
        account: { requestsPerMinute: 7 },
      },
    },
  });
  beforeEach(() => bed.fake.reset());

  it('count down across calls in every dialect, JSON and stream, and stand on the 429', async () => {
    const { gateway } = bed;
    const { token } = await gateway.createToken({ credits: 100_000_000 });
    const calls: Array<{ surface: Surface; stream: boolean; model?: string }> = [
      { surface: 'messages', stream: false },
      { surface: 'chat', stream: false },
      { surface: 'responses', stream: false },
      { surface: 'messages', stream: true },
      { surface: 'chat', stream: true },
      // Across dialects: a responses client answered by the chat upstream.
      { surface: 'responses', stream: true, model: models.chat },
      { surface: 'chat', stream: false, model: models.anthropic },
    ];
    let previousTokens = Number.POSITIVE_INFINITY;
    for (const [index, call] of calls.entries()) {
      const response = await gateway.app.inject({
        method: 'POST',
        ...requestOf(call.surface, token, call),
      });
      expect(response.statusCode, response.body).toBe(200);
      const { headers } = response;
      expect(headers['x-ratelimit-limit-requests']).toBe('7');
      expect(headers['x-ratelimit-remaining-requests']).toBe(String(6 - index));
      resetMs(headers['x-ratelimit-reset-requests']);
      expect(headers['x-ratelimit-limit-tokens']).toBe('1000000');
      const remainingTokens = Number(headers['x-ratelimit-remaining-tokens']);
      // Each admission counts its worst case (prompt and output limit) on top of what the
      // earlier calls really used, which their releases left in the window.
      expect(remainingTokens).toBeLessThan(previousTokens);
      expect(remainingTokens).toBeGreaterThan(1_000_000 - 2_000 * (index + 1));
      previousTokens = remainingTokens;
      resetMs(headers['x-ratelimit-reset-tokens']);
    }

    const refused = await gateway.app.inject({
      method: 'POST',
      ...requestOf('chat', token, {}),
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('7');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    // The window empties a minute after its newest request at the latest; retry-after is when
    // the oldest leaves, which is sooner or the same.
    const reset = resetMs(refused.headers['x-ratelimit-reset-requests']);
    expect(Number(refused.headers['retry-after']) * 1000).toBeLessThanOrEqual(reset + 1000);
    expect(refused.headers['x-ratelimit-limit-tokens']).toBe('1000000');
  });

  it('reach the OpenAI SDK, whose client reads them off the answer', async () => {
    const { token } = await bed.gateway.createToken({ credits: 100_000_000 });
    const client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: token, maxRetries: 0 });
    const ask = () =>
      client.chat.completions
        .create({ model: models.chat, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
    const first = await ask();
    const second = await ask();
    expect(first.data.choices[0]?.message.content).toBeTypeOf('string');
    const read = (response: Response, name: string) => response.headers.get(name);
    expect(read(first.response, 'x-ratelimit-limit-requests')).toBe('7');
    expect(read(first.response, 'x-ratelimit-remaining-requests')).toBe('6');
    expect(read(second.response, 'x-ratelimit-remaining-requests')).toBe('5');
    resetMs(read(second.response, 'x-ratelimit-reset-requests'));
    resetMs(read(second.response, 'x-ratelimit-reset-tokens'));
    expect(Number(read(second.response, 'x-ratelimit-remaining-tokens'))).toBeLessThan(
      Number(read(first.response, 'x-ratelimit-remaining-tokens')),
    );
  });
});

describe('cost and balance headers on generation answers', () => {
  const bed = useUpstreamTestBed({ ...modelPerDialect(models) });
  beforeEach(() => bed.fake.reset());

  for (const surface of ['messages', 'chat', 'responses'] as const) {
    it(`a ${surface} JSON answer tells its charge and the balance after it, as the ledger has them`, async () => {
      const { gateway } = bed;
      const { token, accountId } = await gateway.createToken({ credits: 12_345_678 });
      bed.fake.enqueue({ output: [{ text: 'Hello.' }], usage: { input: 1234, output: 321 } });
      const response = await gateway.app.inject({
        method: 'POST',
        ...requestOf(surface, token, {}),
      });
      expect(response.statusCode, response.body).toBe(200);

      const [entry] = await gateway.store.ledger.listEntries(accountId, 1);
      expect(entry).toMatchObject({ kind: 'usage' });
      const charged = -(entry?.amount as number);
      expect(charged).toBeGreaterThan(0);
      expect(response.headers['x-switchyard-cost']).toBe(formatCredits(charged));
      const balance = await gateway.store.ledger.getBalance(accountId);
      expect(balance.available).toBe(12_345_678 - charged);
      expect(response.headers['x-switchyard-balance']).toBe(formatCredits(balance.available));
      // No limits configured: none of the rate-limit headers.
      for (const name of rateLimitHeaderNames) expect(response.headers[name]).toBeUndefined();
    });
  }

  it('a stream tells the balance it started with and no cost, which is not known yet', async () => {
    const { gateway } = bed;
    const { token, accountId } = await gateway.createToken({ credits: 5_000_000 });
    const before = await gateway.store.ledger.getBalance(accountId);
    const response = await gateway.app.inject({
      method: 'POST',
      ...requestOf('messages', token, { stream: true, model: models.chat }),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-switchyard-balance']).toBe(formatCredits(before.available));
    expect(response.headers['x-switchyard-cost']).toBeUndefined();
    for (const name of rateLimitHeaderNames) expect(response.headers[name]).toBeUndefined();
  });
});
