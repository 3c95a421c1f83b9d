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

const usage = {
  input: 200,
  output: 60,
  cacheRead: 800,
  cacheWrite5m: 40,
  cacheWrite1h: 0,
  reasoning: 25,
};
const parisArguments = '{"city":"Paris","unit":"celsius"}';
const osloArguments = '{"city":"Oslo","unit":"fahrenheit","days":7}';

const parallelCalls: FakeReply = {
  output: [
    { toolCall: { id: 'call_paris', name: 'get_weather', arguments: parisArguments } },
    { toolCall: { id: 'call_oslo', name: 'get_weather', arguments: osloArguments } },
  ],
  usage,
};

function chat(stream: boolean, extra: Record<string, unknown> = {}) {
  return callFakeUpstream(`${fake.url}/v1/chat/completions`, {
    headers: { authorization: 'Bearer upstream-key' },
    body: { model: 'gpt-fake', stream, messages: [{ role: 'user', content: 'hi' }], ...extra },
  });
}

const includeUsage = { stream_options: { include_usage: true } };

function toolCallDeltas(chunks: WireJson[]): WireJson[] {
  return chunks.flatMap((chunk) => chunk.choices[0]?.delta?.tool_calls ?? []);
}

describe('chat JSON rendering', () => {
  it('renders text, reasoning_content and tool calls in one assistant message', async () => {
    fake.enqueue({
      output: [
        { reasoning: { text: 'Thinking it over.' } },
        { text: 'Checking.' },
        { toolCall: { id: 'call_paris', name: 'get_weather', arguments: parisArguments } },
      ],
    });
    const completion = jsonOf(await chat(false));
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message).toMatchObject({
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'Thinking it over.',
      tool_calls: [
        {
          id: 'call_paris',
          type: 'function',
          function: { name: 'get_weather', arguments: parisArguments },
        },
      ],
    });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
  });

  it('sends null content when the answer is only tool calls', async () => {
    fake.enqueue(parallelCalls);
    const message = jsonOf(await chat(false)).choices[0].message;
    expect(message.content).toBeNull();
    expect(message.tool_calls.map((call: WireJson) => call.id)).toEqual([
      'call_paris',
      'call_oslo',
    ]);
  });

  it('counts cached and cache-written tokens inside prompt_tokens', async () => {
    fake.enqueue({ output: [{ text: 'hi' }], usage });
    const reported = jsonOf(await chat(false)).usage;
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
    expect(reported).toMatchObject({
      prompt_tokens: prompt,
      completion_tokens: usage.output,
      total_tokens: prompt + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cacheRead },
      completion_tokens_details: { reasoning_tokens: usage.reasoning },
    });
  });

  it('maps the length finish reason', async () => {
    fake.enqueue({ output: [{ text: 'cut' }], finishReason: 'length' });
    expect(jsonOf(await chat(false)).choices[0].finish_reason).toBe('length');
  });
});

describe('chat SSE rendering', () => {
  it('sends data-only chunks ending in [DONE] and no usage unless asked', async () => {
    fake.enqueue({ output: [{ text: 'Hello from the fake upstream.' }], usage });
    const answer = await chat(true);
    const events = eventsOf(answer);
    expect(events.every((event) => event.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = eventDataOf(answer);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant' });
    expect(chunks.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    const text = chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('');
    expect(text).toBe('Hello from the fake upstream.');
    expect(chunks.filter((chunk) => chunk.choices[0].delta.content).length).toBeGreaterThan(3);
  });

  it('with include_usage ends with a choices-less usage chunk, then [DONE]', async () => {
    fake.enqueue({ output: [{ text: 'Hello.' }], usage });
    const answer = await chat(true, includeUsage);
    expect(eventsOf(answer).at(-1)?.data).toBe('[DONE]');
    const chunks = eventDataOf(answer);
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage.prompt_tokens).toBe(usage.input + usage.cacheRead + usage.cacheWrite5m);
    expect(last.usage.prompt_tokens_details.cached_tokens).toBe(usage.cacheRead);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
  });

  it('streams parallel tool calls: id, type and name once per index, then argument fragments', async () => {
    fake.enqueue(parallelCalls);
    const deltas = toolCallDeltas(eventDataOf(await chat(true)));
    for (const [index, id, args] of [
      [0, 'call_paris', parisArguments],
      [1, 'call_oslo', osloArguments],
    ] as const) {
      const ofCall = deltas.filter((delta) => delta.index === index);
      expect(ofCall[0]).toEqual({
        index,
        id,
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      for (const later of ofCall.slice(1)) {
        expect(Object.keys(later).sort()).toEqual(['function', 'index']);
        expect(Object.keys(later.function)).toEqual(['arguments']);
      }
      expect(ofCall.length).toBeGreaterThan(3);
      expect(ofCall.map((delta) => delta.function.arguments).join('')).toBe(args);
    }
  });

  it('folds the role into the first delta when the answer opens with a tool call', async () => {
    fake.enqueue(parallelCalls);
    const first = eventDataOf(await chat(true))[0].choices[0].delta;
    expect(first).toMatchObject({ role: 'assistant', content: null });
    expect(first.tool_calls[0].id).toBe('call_paris');
  });

  it('streams reasoning as reasoning_content deltas', async () => {
    fake.enqueue({ output: [{ reasoning: { text: 'Step one, step two.' } }, { text: 'Done.' }] });
    const chunks = eventDataOf(await chat(true));
    const reasoning = chunks.map((chunk) => chunk.choices[0].delta.reasoning_content ?? '');
    expect(reasoning.join('')).toBe('Step one, step two.');
  });

  it('replaces the rest of the stream with an error chunk and no [DONE]', async () => {
    fake.enqueue({
      output: [{ text: 'partial answer that fails' }],
      midStreamError: { afterEvents: 3, message: 'upstream broke' },
    });
    const events = eventsOf(await chat(true, includeUsage));
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[3]?.data ?? '')).toEqual({
      error: { message: 'upstream broke', type: 'server_error', param: null, code: null },
    });
  });

  it('renders error statuses in shape A', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '3' } }, { status: 500 });
    const limited = await chat(true);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('3');
    expect(jsonOf(limited).error).toMatchObject({ code: 'rate_limit_exceeded', param: null });
    expect(jsonOf(limited).type).toBeUndefined();
    expect(jsonOf(await chat(false)).error.type).toBe('server_error');
  });
});
