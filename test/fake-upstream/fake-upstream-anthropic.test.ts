import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, eventDataOf, eventsOf, jsonOf } from './call-fake-upstream.ts';
import type { WireJson } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeReply, FakeUpstream } from './fake-upstream-server.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const answerText = 'The weather in Paris is mild, around eighteen degrees.';
const thinkingText = 'The user wants the weather; I should call the tool first.';
const weatherArguments = '{"city":"Paris","unit":"celsius","days":[1,2,3]}';
const usage = { input: 120, output: 45, cacheRead: 1000, cacheWrite5m: 30, cacheWrite1h: 7 };

const thinkingThenTool: FakeReply = {
  output: [
    { reasoning: { text: thinkingText, signature: 'c2lnbmF0dXJlLWJ5dGVz+/==' } },
    { text: 'Let me check.' },
    { toolCall: { id: 'toolu_weather', name: 'get_weather', arguments: weatherArguments } },
  ],
  usage,
};

function messages(stream: boolean, extra: Record<string, unknown> = {}) {
  return callFakeUpstream(`${fake.url}/v1/messages`, {
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'upstream-key' },
    body: {
      model: 'claude-fake',
      max_tokens: 1024,
      stream,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      ...extra,
    },
  });
}

function deltasOf(events: WireJson[], index: number, field: string): string[] {
  return events
    .filter((event) => event.type === 'content_block_delta' && event.index === index)
    .flatMap((event) => (field in event.delta ? [event.delta[field] as string] : []));
}

describe('Anthropic JSON rendering', () => {
  it('renders thinking, text and tool_use blocks with the tool input parsed', async () => {
    fake.enqueue(thinkingThenTool);
    const message = jsonOf(await messages(false));
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-fake' });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: thinkingText, signature: 'c2lnbmF0dXJlLWJ5dGVz+/==' },
      { type: 'text', text: 'Let me check.' },
      {
        type: 'tool_use',
        id: 'toolu_weather',
        name: 'get_weather',
        input: JSON.parse(weatherArguments),
      },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('keeps cache reads and writes out of input_tokens and splits writes by TTL', async () => {
    fake.enqueue({ output: [{ text: 'hi' }], usage });
    const message = jsonOf(await messages(false));
    expect(message.usage).toMatchObject({
      input_tokens: usage.input,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheWrite5m + usage.cacheWrite1h,
      cache_creation: {
        ephemeral_5m_input_tokens: usage.cacheWrite5m,
        ephemeral_1h_input_tokens: usage.cacheWrite1h,
      },
      output_tokens: usage.output,
    });
  });

  it('maps finish reasons to end_turn and max_tokens', async () => {
    fake.enqueue({ output: [{ text: 'a' }] }, { output: [{ text: 'b' }], finishReason: 'length' });
    expect(jsonOf(await messages(false)).stop_reason).toBe('end_turn');
    expect(jsonOf(await messages(false)).stop_reason).toBe('max_tokens');
  });

  it('renders redacted thinking as its own block', async () => {
    fake.enqueue({ output: [{ reasoning: { redactedData: 'EmwKAhgB' } }, { text: 'ok' }] });
    expect(jsonOf(await messages(false)).content[0]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgB',
    });
  });
});

describe('Anthropic SSE rendering', () => {
  it('names every event after its type and frames the message start to stop', async () => {
    fake.enqueue(thinkingThenTool);
    const answer = await messages(true);
    expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = eventsOf(answer);
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names).toContain('ping');
  });

  it('reports the real prompt size in message_start and cumulative usage in message_delta', async () => {
    fake.enqueue(thinkingThenTool);
    const events = eventDataOf(await messages(true));
    const start = events.find((event) => event.type === 'message_start');
    const delta = events.find((event) => event.type === 'message_delta');
    expect(start.message.usage.input_tokens).toBe(usage.input);
    expect(start.message.usage.cache_read_input_tokens).toBe(usage.cacheRead);
    expect(start.message.usage.cache_creation.ephemeral_1h_input_tokens).toBe(usage.cacheWrite1h);
    expect(delta.usage.output_tokens).toBe(usage.output);
    expect(delta.delta.stop_reason).toBe('tool_use');
  });

  it('splits text, thinking and tool input into several small deltas that reassemble', async () => {
    fake.enqueue(thinkingThenTool);
    const events = eventDataOf(await messages(true));
    const thinking = deltasOf(events, 0, 'thinking');
    const text = deltasOf(events, 1, 'text');
    const json = deltasOf(events, 2, 'partial_json');
    expect(thinking.join('')).toBe(thinkingText);
    expect(text.join('')).toBe('Let me check.');
    expect(JSON.parse(json.join(''))).toEqual(JSON.parse(weatherArguments));
    expect(json[0]).toBe('');
    for (const piece of [...thinking, ...text, ...json.slice(1)]) {
      expect(piece.length).toBeGreaterThanOrEqual(1);
      expect(piece.length).toBeLessThanOrEqual(8);
    }
    expect(json.length).toBeGreaterThan(3);
  });

  it('opens tool_use with an empty input and sends the signature just before the block stops', async () => {
    fake.enqueue(thinkingThenTool);
    const events = eventDataOf(await messages(true));
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => event.index)).toEqual([0, 1, 2]);
    expect(starts[2].content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_weather',
      name: 'get_weather',
      input: {},
    });
    const stopAt = events.findIndex((event) => event.type === 'content_block_stop');
    expect(events[stopAt - 1].delta).toEqual({
      type: 'signature_delta',
      signature: 'c2lnbmF0dXJlLWJ5dGVz+/==',
    });
  });

  it('sends redacted thinking whole in its block start, with no deltas', async () => {
    fake.enqueue({ output: [{ reasoning: { redactedData: 'EmwKAhgB' } }, { text: 'ok' }] });
    const events = eventDataOf(await messages(true));
    const start = events.find((event) => event.type === 'content_block_start');
    expect(start.content_block).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgB' });
    expect(deltasOf(events, 0, 'type')).toEqual([]);
  });

  it('gives parallel tool calls their own blocks', async () => {
    fake.enqueue({
      output: [
        { toolCall: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { toolCall: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    });
    const events = eventDataOf(await messages(true));
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(new Set(starts.map((event) => event.content_block.id)).size).toBe(2);
    expect(JSON.parse(deltasOf(events, 1, 'partial_json').join(''))).toEqual({ city: 'Oslo' });
  });

  it('replaces the rest of the stream with an error event on a mid-stream failure', async () => {
    fake.enqueue({ output: [{ text: answerText }], midStreamError: { afterEvents: 4 } });
    const answer = await messages(true);
    const events = eventsOf(answer);
    expect(events).toHaveLength(5);
    expect(events[4]?.event).toBe('error');
    expect(JSON.parse(events[4]?.data ?? '')).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

describe('Anthropic errors and token counting', () => {
  it('renders error statuses in shape B and keeps scripted headers', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '7' } }, { status: 529 });
    const limited = await messages(true);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(jsonOf(limited)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const overloaded = await messages(false);
    expect(overloaded.status).toBe(529);
    expect(jsonOf(overloaded).error.type).toBe('overloaded_error');
  });

  it('answers count_tokens with the scripted count, else one derived from the body', async () => {
    fake.enqueueTokenCount({ inputTokens: 4242 });
    const countUrl = `${fake.url}/v1/messages/count_tokens`;
    const body = { model: 'claude-fake', messages: [{ role: 'user', content: 'hi' }] };
    expect(jsonOf(await callFakeUpstream(countUrl, { body }))).toEqual({ input_tokens: 4242 });
    const small = jsonOf(await callFakeUpstream(countUrl, { body }));
    const large = jsonOf(
      await callFakeUpstream(countUrl, {
        body: { ...body, messages: [{ role: 'user', content: 'x'.repeat(4000) }] },
      }),
    );
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens + 900);
  });
});
