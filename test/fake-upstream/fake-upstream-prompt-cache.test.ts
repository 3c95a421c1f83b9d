import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, eventDataOf, jsonOf } from './call-fake-upstream.ts';
import type { WireJson } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeUpstream } from './fake-upstream-server.ts';

const start = Date.parse('2026-03-01T12:00:00.000Z');
let clock = start;
const minutes = (count: number) => count * 60_000;

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({ promptCache: true, now: () => clock });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  clock = start;
});

const marker = { type: 'ephemeral' };
const system = 'You are a careful assistant. '.repeat(40);

function text(value: string, cacheControl?: Record<string, string>) {
  return cacheControl === undefined
    ? { type: 'text', text: value }
    : { type: 'text', text: value, cache_control: cacheControl };
}

/** A conversation whose last user turn carries the moving marker, as coding agents send it. */
function conversation(turns: number, extra: Record<string, unknown> = {}) {
  const messages: unknown[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    const last = turn === turns;
    messages.push({ role: 'user', content: [text(`question ${turn}`, last ? marker : undefined)] });
    if (!last) messages.push({ role: 'assistant', content: [text(`answer ${turn}`)] });
  }
  return {
    model: 'claude-fake',
    max_tokens: 64,
    system: [text(system, marker)],
    messages,
    ...extra,
  };
}

async function anthropicUsage(key: string, body: unknown, upstream = fake): Promise<WireJson> {
  const answer = await callFakeUpstream(`${upstream.url}/v1/messages`, {
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body,
  });
  expect(answer.status).toBe(200);
  return jsonOf(answer).usage;
}

const promptTotal = (usage: WireJson) =>
  usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;

describe('Anthropic prompt cache per key', () => {
  it('reads back what a conversation wrote on its key, and nothing on another key', async () => {
    const first = await anthropicUsage('sk-a', conversation(1));
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.cache_creation.ephemeral_5m_input_tokens).toBe(first.cache_creation_input_tokens);

    const staying = await anthropicUsage('sk-a', conversation(2));
    // The whole first prompt up to its marker, though the marker has since moved on.
    expect(staying.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(staying.cache_creation_input_tokens).toBeGreaterThan(0);

    const moved = await anthropicUsage('sk-b', conversation(2));
    expect(moved.cache_read_input_tokens).toBe(0);
    expect(moved.cache_creation_input_tokens).toBe(
      staying.cache_read_input_tokens + staying.cache_creation_input_tokens,
    );
    // The cache only moves tokens between the counts; the prompt costs the same in total.
    expect(promptTotal(moved)).toBe(promptTotal(staying));
    expect(staying.input_tokens).toBe(moved.input_tokens);
  });

  it('reads the shared system prefix when only the conversation differs', async () => {
    const first = await anthropicUsage('sk-a', conversation(1));
    const other = await anthropicUsage(
      'sk-a',
      conversation(1, { messages: [{ role: 'user', content: [text('unrelated', marker)] }] }),
    );
    expect(other.cache_read_input_tokens).toBeGreaterThan(0);
    expect(other.cache_read_input_tokens).toBeLessThan(first.cache_creation_input_tokens);
  });

  it('neither reads nor writes without a marker', async () => {
    const plain = {
      model: 'claude-fake',
      max_tokens: 64,
      system,
      messages: [{ role: 'user', content: 'question 1' }],
    };
    await anthropicUsage('sk-a', plain);
    const again = await anthropicUsage('sk-a', plain);
    expect(again.cache_read_input_tokens).toBe(0);
    expect(again.cache_creation_input_tokens).toBe(0);
  });

  it('keeps an entry 5 minutes, renewed by each read, and an hour with ttl 1h', async () => {
    const body = {
      ...conversation(1),
      system: [text(system, { type: 'ephemeral', ttl: '1h' })],
    };
    const first = await anthropicUsage('sk-a', body);
    const oneHour = first.cache_creation.ephemeral_1h_input_tokens;
    const fiveMinutes = first.cache_creation.ephemeral_5m_input_tokens;
    expect(oneHour).toBeGreaterThan(0);
    expect(fiveMinutes).toBeGreaterThan(0);

    clock += minutes(4);
    const renewed = await anthropicUsage('sk-a', body);
    expect(renewed.cache_read_input_tokens).toBe(oneHour + fiveMinutes);
    expect(renewed.cache_creation_input_tokens).toBe(0);

    clock += minutes(4);
    expect((await anthropicUsage('sk-a', body)).cache_read_input_tokens).toBe(
      oneHour + fiveMinutes,
    );

    clock += minutes(6);
    const expired = await anthropicUsage('sk-a', body);
    expect(expired.cache_read_input_tokens).toBe(oneHour);
    expect(expired.cache_creation.ephemeral_5m_input_tokens).toBe(fiveMinutes);

    clock += minutes(61);
    expect((await anthropicUsage('sk-a', body)).cache_read_input_tokens).toBe(0);
  });

  it('reports the split in message_start and message_delta of a stream', async () => {
    const first = await anthropicUsage('sk-a', conversation(1));
    const answer = await callFakeUpstream(`${fake.url}/v1/messages`, {
      headers: { 'x-api-key': 'sk-a' },
      body: { ...conversation(1), stream: true },
    });
    const events = eventDataOf(answer);
    const start = events.find((event) => event.type === 'message_start');
    const delta = events.find((event) => event.type === 'message_delta');
    expect(start.message.usage.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(delta.usage.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
  });

  it('lets a scripted count win and forgets a key on clearPromptCache', async () => {
    await anthropicUsage('sk-a', conversation(1));
    fake.enqueue({ output: [{ text: 'hi' }], usage: { cacheRead: 7 } });
    expect((await anthropicUsage('sk-a', conversation(1))).cache_read_input_tokens).toBe(7);
    fake.clearPromptCache('sk-a');
    expect((await anthropicUsage('sk-a', conversation(1))).cache_read_input_tokens).toBe(0);
  });

  it('is off unless the server is started with promptCache', async () => {
    const uncached = await startFakeUpstream();
    try {
      await anthropicUsage('sk-a', conversation(1), uncached);
      const again = await anthropicUsage('sk-a', conversation(1), uncached);
      expect(again.cache_read_input_tokens).toBe(0);
      expect(again.cache_creation_input_tokens).toBe(0);
    } finally {
      await uncached.close();
    }
  });
});

describe('OpenAI automatic prefix cache per key', () => {
  const chatTurns = (turns: number) => {
    const messages: unknown[] = [{ role: 'system', content: system }];
    for (let turn = 1; turn <= turns; turn += 1) {
      messages.push({ role: 'user', content: `question ${turn}` });
      if (turn < turns) messages.push({ role: 'assistant', content: `answer ${turn}` });
    }
    return { model: 'gpt-fake', messages };
  };

  async function chatUsage(key: string, body: unknown): Promise<WireJson> {
    const answer = await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${key}` },
      body,
    });
    return jsonOf(answer).usage;
  }

  it('reports the longest whole-message prefix the key has sent as cached_tokens', async () => {
    const first = await chatUsage('sk-a', chatTurns(1));
    expect(first.prompt_tokens_details.cached_tokens).toBe(0);
    const staying = await chatUsage('sk-a', chatTurns(2));
    const cached = staying.prompt_tokens_details.cached_tokens;
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBeLessThan(staying.prompt_tokens);
    const moved = await chatUsage('sk-b', chatTurns(2));
    expect(moved.prompt_tokens_details.cached_tokens).toBe(0);
    expect(moved.prompt_tokens).toBe(staying.prompt_tokens);
    const third = await chatUsage('sk-a', chatTurns(3));
    expect(third.prompt_tokens_details.cached_tokens).toBeGreaterThan(cached);
  });

  it('forgets a prefix 5 minutes after its last use', async () => {
    await chatUsage('sk-a', chatTurns(1));
    clock += minutes(4);
    const used = (await chatUsage('sk-a', chatTurns(1))).prompt_tokens_details.cached_tokens;
    expect(used).toBeGreaterThan(0);
    clock += minutes(4);
    expect((await chatUsage('sk-a', chatTurns(1))).prompt_tokens_details.cached_tokens).toBe(used);
    clock += minutes(6);
    expect((await chatUsage('sk-a', chatTurns(1))).prompt_tokens_details.cached_tokens).toBe(0);
  });

  it('caches Responses input items and reports input_tokens_details.cached_tokens', async () => {
    const body = (turns: number) => ({
      model: 'gpt-fake',
      instructions: system,
      input: chatTurns(turns).messages.slice(1),
    });
    const call = async (key: string, turns: number) =>
      jsonOf(
        await callFakeUpstream(`${fake.url}/v1/responses`, {
          headers: { authorization: `Bearer ${key}` },
          body: body(turns),
        }),
      ).usage;
    expect((await call('sk-a', 1)).input_tokens_details.cached_tokens).toBe(0);
    const staying = await call('sk-a', 2);
    expect(staying.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(staying.input_tokens_details.cached_tokens).toBeLessThan(staying.input_tokens);
    expect((await call('sk-b', 2)).input_tokens_details.cached_tokens).toBe(0);
  });
});
