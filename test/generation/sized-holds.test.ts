import { beforeEach, describe, expect, it } from 'vitest';

import type { FakeReply } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import { testModel } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/**
 * docs/decisions/0100 and 0101: a hold is sized from the prompt's count, an account that can pay
 * gets an answer (with a lower output limit when its balance cannot cover the one asked for), and
 * a 402 says whether the balance cannot pay or is reserved by requests in flight.
 */

const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };
// The upstream models' names give the chat and responses deployments OpenAI's o200k tokenizer.
const models = [
  testModel('gpt-chat', 'chat', {
    deployments: [{ provider: 'chat', upstreamModel: 'gpt-4o' }],
    pricing,
  }),
  testModel('gpt-responses', 'responses', {
    deployments: [{ provider: 'responses', upstreamModel: 'gpt-4o' }],
    pricing,
  }),
  testModel('claude', 'anthropic', { pricing }),
];

/** "hi" under OpenAI's chat framing: 3 priming the reply, 3 for the message, 1 role, 1 text. */
const promptTokens = 8;
const asked = 8;
/** What one small call costs: its 8 prompt tokens at 3 µ and 8 output tokens at 15 µ. */
const callPrice = promptTokens * 3 + asked * 15;

const smallReply: FakeReply = {
  output: [{ text: 'one two three four five six seven eight' }],
  usage: { input: promptTokens, output: asked },
  finishReason: 'length',
};

describe('credit holds sized to the request (docs/decisions/0100, 0101)', () => {
  const bed = useUpstreamTestBed({
    providers: {
      chat: { kind: 'openai-chat' },
      responses: { kind: 'openai-responses' },
      anthropic: { kind: 'anthropic' },
    },
    models,
  });
  beforeEach(() => bed.fake.reset());

  const chat = (token: string, body: Record<string, unknown> = {}) =>
    bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'x-api-key': token },
      payload: { model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], ...body },
    });

  it('an account granted 5.5 calls gets 5 answers when it sends 30 at once', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: (callPrice * 11) / 2 });
    bed.fake.enqueue(...Array.from({ length: 30 }, () => ({ ...smallReply, delayMs: 50 })));
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => chat(token, { max_tokens: asked })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 402)).toHaveLength(25);
    const balance = await bed.gateway.store.ledger.getBalance(accountId);
    expect(balance).toEqual({ balance: callPrice / 2, held: 0, available: callPrice / 2 });
  });

  it('one at a time, the same account gets 5 answers, then a 402 saying it cannot pay', async () => {
    const { token } = await bed.gateway.createToken({ credits: (callPrice * 11) / 2 });
    bed.fake.enqueue(...Array.from({ length: 6 }, () => smallReply));
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      statuses.push((await chat(token, { max_tokens: asked })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await chat(token, { max_tokens: asked });
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({
      error: { type: 'billing_error', code: 'insufficient_credits' },
    });
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(bed.fake.requests).toHaveLength(5);
  });

  /** A typical answer: the prompt and 200 output tokens. */
  const typicalReply: FakeReply = {
    output: [{ text: 'a typical answer' }],
    usage: { input: promptTokens, output: 200 },
  };
  const typicalPrice = promptTokens * 3 + 200 * 15;

  it('a chat client without a limit whose balance cannot cover the model limit gets answers with a lower one', async () => {
    // 20 typical answers' worth; the model's 8 192 output tokens alone cost 122 880 µ.
    const { token } = await bed.gateway.createToken({ credits: 20 * typicalPrice });
    bed.fake.enqueue(...Array.from({ length: 10 }, () => typicalReply));
    let previous = Number.POSITIVE_INFINITY;
    for (let index = 0; index < 10; index += 1) {
      const response = await chat(token);
      expect(response.statusCode, response.body).toBe(200);
      const limit = Number(response.headers['x-switchyard-output-limit']);
      expect(limit).toBeGreaterThanOrEqual(1_024);
      expect(limit).toBeLessThan(8_192);
      expect(limit).toBeLessThan(previous);
      previous = limit;
      // The upstream is asked for no more than the hold covers.
      expect(bed.fake.requests[index]?.body).toMatchObject({ max_completion_tokens: limit });
    }
  });

  it('once even the configured minimum cannot be covered, the answer is a 402 that cannot pay', async () => {
    // Under the hold of 1 024 output tokens (8 × 3 + 1 024 × 15 µ).
    const { token } = await bed.gateway.createToken({ credits: 15_000 });
    const response = await chat(token);
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ error: { code: 'insufficient_credits' } });
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('lowers the limit on translated routes and streams too, and the stop reason shows it', async () => {
    const { token } = await bed.gateway.createToken({ credits: 20 * typicalPrice });
    bed.fake.enqueue({ ...typicalReply, finishReason: 'length' });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': token },
      payload: {
        model: 'gpt-responses',
        max_tokens: 8_192,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const limit = Number(response.headers['x-switchyard-output-limit']);
    expect(limit).toBeGreaterThanOrEqual(1_024);
    expect(limit).toBeLessThan(8_192);
    // Beside the call, the prompt is counted by the upstream (/v1/responses/input_tokens).
    const sent = bed.fake.requests.find((recorded) => recorded.path === '/v1/responses');
    expect(sent?.body).toMatchObject({ max_output_tokens: limit });
    const events = parseServerSentEvents(response.body);
    const delta = events.find((event) => event.event === 'message_delta');
    expect(JSON.parse(delta?.data ?? '{}')).toMatchObject({ delta: { stop_reason: 'max_tokens' } });
  });

  it('tells credits reserved by requests in flight from a balance that cannot pay, in both shapes', async () => {
    // Covers one call of 100 output tokens: a second one at the same time finds it reserved.
    const { token } = await bed.gateway.createToken({ credits: 2_000 });
    bed.fake.enqueue({ ...typicalReply, usage: { input: 8, output: 100 }, delayMs: 300 });
    const first = chat(token, { max_tokens: 100 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await chat(token, { max_tokens: 100 });
    expect(second.statusCode).toBe(402);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.json()).toMatchObject({
      error: { type: 'billing_error', code: 'credits_reserved' },
    });
    const messages = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': token },
      payload: { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(messages.statusCode).toBe(402);
    expect(messages.headers['retry-after']).toBe('1');
    expect(messages.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'billing_error',
        message: expect.stringMatching(/reserved by requests in flight/),
      },
    });
    expect((await first).statusCode).toBe(200);
  });
});
