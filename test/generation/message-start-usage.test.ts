import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import {
  startUpstreamTestBed,
  testModel,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

// SSE payloads are read loosely, the way a client reads them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/**
 * docs/clients.md: a message-style stream's `message_start.usage.input_tokens` is the prompt size,
 * never 0, also when the upstream is OpenAI-style and reports usage only at its end; decisions/0003:
 * the best size known without waiting, with the upstream's exact figures in `message_delta`.
 */
describe('the prompt size in message_start from OpenAI-style upstreams', () => {
  let bed: UpstreamTestBed;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;

  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: {
        chat: { kind: 'openai-chat' },
        countingChat: { kind: 'openai-chat', countInputTokens: true },
        responses: { kind: 'openai-responses' },
        tokenizedChat: { kind: 'openai-chat' },
        vllm: { kind: 'openai-chat', tokenizePath: '/tokenize' },
        uncountedResponses: { kind: 'openai-responses', countInputTokens: false },
      },
      models: [
        testModel('chat-model', 'chat'),
        testModel('counting-chat-model', 'countingChat'),
        testModel('responses-model', 'responses'),
        testModel('uncounted-responses-model', 'uncountedResponses'),
        // Upstream names of OpenAI's families choose the tokenizer; the configuration may too.
        testModel('vllm-model', 'vllm'),
        testModel('tokenized-chat-model', 'tokenizedChat', {
          deployments: [{ provider: 'tokenizedChat', upstreamModel: 'gpt-4o-mini' }],
        }),
        testModel('tokenized-responses-model', 'responses', {
          deployments: [
            { provider: 'responses', upstreamModel: 'house-model', tokenizer: 'o200k_base' },
          ],
        }),
      ],
      credits: 100_000_000,
    });
    ({ fake: upstream, gateway, token } = bed);
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => upstream.reset());

  const streamMessages = (model: string, stream = true) =>
    gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': token },
      payload: {
        model,
        max_tokens: 100,
        stream,
        messages: [{ role: 'user', content: 'Count me, please.' }],
      },
    });

  const read = (body: string) => {
    const events = parseServerSentEvents(body).map(({ event, data }) => ({
      event,
      data: JSON.parse(data) as Json,
    }));
    return {
      names: events.map((event) => event.event),
      startInput: events[0]?.data.message?.usage?.input_tokens as number | undefined,
      finalUsage: events.find((event) => event.event === 'message_delta')?.data.usage,
      text: events
        .filter((event) => event.data.delta?.type === 'text_delta')
        .map((event) => event.data.delta.text as string)
        .join(''),
    };
  };
  const countRequests = () =>
    upstream.requests.filter((request) => request.path === '/v1/responses/input_tokens');

  /** OpenAI's chat framing over o200k_base: 3 per message plus its role, 3 priming the reply. */
  const localCount = (text: string) => 3 + 3 + countO200k('user') + countO200k(text);

  it('puts a count that already answered into message_start, and the upstream figures into message_delta', async () => {
    // The count answers at once; the generation's first byte comes 150 ms later.
    upstream.enqueue({
      output: [{ text: 'Counted.' }],
      usage: { input: 52, output: 3 },
      delayMs: 150,
    });
    upstream.enqueueTokenCount({ inputTokens: 52 });
    const response = await streamMessages('counting-chat-model');
    expect(response.statusCode, response.body).toBe(200);
    const view = read(response.body);
    expect(view.names[0]).toBe('message_start');
    expect(view.startInput).toBe(52);
    expect(view.text).toBe('Counted.');
    const [count] = countRequests();
    expect(count?.body).toMatchObject({
      model: 'counting-chat-model-upstream',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Count me, please.' }] }],
    });
    expect(count?.body).not.toHaveProperty('stream');
  });

  it('does not wait for a slow count: message_start has the local tokenizer count, message_delta the truth', async () => {
    upstream.enqueue({ output: [{ text: 'Hi.' }], usage: { input: 10, cacheRead: 30, output: 2 } });
    upstream.enqueueTokenCount({ inputTokens: 40, delayMs: 3_000 });
    const began = Date.now();
    const view = read((await streamMessages('tokenized-responses-model')).body);
    expect(Date.now() - began).toBeLessThan(1_500);
    expect(countRequests()).toHaveLength(1);
    expect(view.startInput).toBe(localCount('Count me, please.'));
    // message_delta carries the upstream's split: no-cache input plus cache reads.
    expect(view.finalUsage).toMatchObject({
      input_tokens: 10,
      cache_read_input_tokens: 30,
      output_tokens: 2,
    });
  });

  it("uses the answer of the upstream's tokenize route when it came before the first event", async () => {
    upstream.enqueue({
      output: [{ text: 'Tokenized.' }],
      usage: { input: 19, output: 2 },
      delayMs: 150,
    });
    upstream.enqueueTokenCount({ inputTokens: 19 });
    const view = read((await streamMessages('vllm-model')).body);
    expect(upstream.requests.map((request) => request.path)).toContain('/tokenize');
    expect(view.startInput).toBe(19);
    expect(view.text).toBe('Tokenized.');
  });

  it('counts with the local tokenizer when the upstream cannot count, or its count fails', async () => {
    upstream.enqueue({ output: [{ text: 'Local.' }], usage: { input: 61, output: 2 } });
    const local = read((await streamMessages('tokenized-chat-model')).body);
    expect(countRequests()).toHaveLength(0);
    expect(local.startInput).toBe(localCount('Count me, please.'));
    expect(local.finalUsage).toMatchObject({ input_tokens: 61 });

    upstream.enqueue({ output: [{ text: 'Still here.' }], usage: { input: 77, output: 4 } });
    upstream.enqueueTokenCount({ status: 500 });
    const failed = read((await streamMessages('tokenized-responses-model')).body);
    expect(countRequests()).toHaveLength(1);
    expect(failed.startInput).toBe(localCount('Count me, please.'));
    expect(failed.text).toBe('Still here.');
    expect(failed.names.at(-1)).toBe('message_stop');
  });

  it.each([
    ['a chat upstream without a counting endpoint', 'chat-model'],
    ['a responses upstream whose counting is switched off', 'uncounted-responses-model'],
  ])('does not ask %s, and estimates a model without a known tokenizer', async (_name, model) => {
    upstream.enqueue({ output: [{ text: 'Estimated.' }], usage: { input: 61, output: 2 } });
    const view = read((await streamMessages(model)).body);
    expect(countRequests()).toHaveLength(0);
    // About four characters a token, under the same framing: never a 0.
    expect(view.startInput).toBe(3 + 3 + Math.ceil('user'.length / 4) + 5);
    expect(view.finalUsage).toMatchObject({ input_tokens: 61 });
    expect(view.text).toBe('Estimated.');
  });

  it('sends what it decoded, then the error event, when the upstream breaks', async () => {
    upstream.enqueue({
      output: [{ text: 'The first part of a long answer.' }],
      usage: { input: 9, output: 40 },
      cutAfterEvents: 4,
    });
    const view = read((await streamMessages('chat-model')).body);
    expect(view.names[0]).toBe('message_start');
    expect(view.startInput).toBeGreaterThan(0);
    expect(view.text.length).toBeGreaterThan(0);
    expect(view.names.at(-1)).toBe('error');
  });

  it('asks for no count when the client does not stream, or speaks another dialect', async () => {
    upstream.enqueue({ output: [{ text: 'JSON.' }], usage: { input: 5, output: 1 } });
    const json = await streamMessages('responses-model', false);
    expect(json.json()).toMatchObject({ usage: { input_tokens: 5 } });

    upstream.enqueue({ output: [{ text: 'Chat.' }], usage: { input: 5, output: 1 } });
    const chat = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        model: 'responses-model',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      },
    });
    expect(chat.statusCode).toBe(200);
    expect(countRequests()).toHaveLength(0);
  });

  it('counts through count_tokens where the chat upstream has the endpoint, and refuses where not', async () => {
    upstream.enqueueTokenCount({ inputTokens: 23 });
    const count = (model: string) =>
      gateway.app.inject({
        method: 'POST',
        url: '/v1/messages/count_tokens',
        headers: { 'x-api-key': token },
        payload: { model, messages: [{ role: 'user', content: 'How many?' }] },
      });
    const counted = await count('counting-chat-model');
    expect(counted.statusCode, counted.body).toBe(200);
    expect(counted.json()).toEqual({ input_tokens: 23 });
    const refused = await count('chat-model');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/no counting endpoint/);
  });
});
