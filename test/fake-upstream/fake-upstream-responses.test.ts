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
  input: 300,
  output: 90,
  cacheRead: 2048,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 40,
};
const shellArguments = '{"command":["ls","-la"],"workdir":"/tmp"}';

const reasonTalkCall: FakeReply = {
  output: [
    { reasoning: { text: 'Listing the directory helps.', encryptedContent: 'gAAAAB-opaque' } },
    { text: 'I will list the files.' },
    {
      toolCall: { id: 'call_shell', itemId: 'fc_shell', name: 'shell', arguments: shellArguments },
    },
  ],
  usage,
};

const encrypted = { include: ['reasoning.encrypted_content'] };

function responses(stream: boolean, extra: Record<string, unknown> = {}) {
  return callFakeUpstream(`${fake.url}/v1/responses`, {
    headers: { authorization: 'Bearer upstream-key' },
    body: { model: 'gpt-fake', stream, store: false, input: 'list files', ...extra },
  });
}

function ofType(events: WireJson[], type: string): WireJson[] {
  return events.filter((event) => event.type === type);
}

describe('Responses JSON rendering', () => {
  it('renders reasoning, message and function_call items with distinct id and call_id', async () => {
    fake.enqueue(reasonTalkCall);
    const response = jsonOf(await responses(false, encrypted));
    expect(response).toMatchObject({ object: 'response', status: 'completed', store: false });
    expect(response.output.map((item: WireJson) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    expect(response.output[0]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'Listing the directory helps.' }],
      encrypted_content: 'gAAAAB-opaque',
    });
    expect(response.output[1].content[0]).toMatchObject({
      type: 'output_text',
      text: 'I will list the files.',
    });
    expect(response.output[2]).toMatchObject({
      id: 'fc_shell',
      call_id: 'call_shell',
      name: 'shell',
      arguments: shellArguments,
    });
  });

  it('makes up fc_ item ids that differ from call ids', async () => {
    fake.enqueue({ output: [{ toolCall: { name: 'shell', arguments: '{}' } }] });
    const call = jsonOf(await responses(false)).output[0];
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
  });

  it('sends encrypted_content only when the request includes it', async () => {
    fake.enqueue(reasonTalkCall, reasonTalkCall);
    expect(jsonOf(await responses(false)).output[0]).not.toHaveProperty('encrypted_content');
    expect(jsonOf(await responses(false, encrypted)).output[0].encrypted_content).toBe(
      'gAAAAB-opaque',
    );
  });

  it('counts cached tokens inside input_tokens', async () => {
    fake.enqueue(reasonTalkCall);
    expect(jsonOf(await responses(false)).usage).toEqual({
      input_tokens: usage.input + usage.cacheRead,
      input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning },
      total_tokens: usage.input + usage.cacheRead + usage.output,
    });
  });

  it('marks a length stop as incomplete with max_output_tokens', async () => {
    fake.enqueue({ output: [{ text: 'truncated' }], finishReason: 'length' });
    const response = jsonOf(await responses(false));
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output[0].status).toBe('incomplete');
  });
});

describe('Responses SSE rendering', () => {
  it('numbers every event in order and names it after its type', async () => {
    fake.enqueue(reasonTalkCall);
    const events = eventsOf(await responses(true, encrypted));
    const data = events.map((event) => JSON.parse(event.data));
    expect(data.map((event) => event.sequence_number)).toEqual(data.map((_, index) => index));
    for (const [index, event] of events.entries()) expect(data[index].type).toBe(event.event);
    expect(data.slice(0, 2).map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
    ]);
    expect(data[0].response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    expect(typeof data[0].response.created_at).toBe('number');
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });

  it('streams a message item through its full event sequence', async () => {
    fake.enqueue({ output: [{ text: 'Here are the files you asked for.' }] });
    const types = eventDataOf(await responses(true)).map((event) => event.type);
    const textDeltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(textDeltas).toBeGreaterThan(3);
    expect(types.filter((type) => type !== 'response.output_text.delta')).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('reassembles text, summary and argument deltas into their done events', async () => {
    fake.enqueue(reasonTalkCall);
    const events = eventDataOf(await responses(true, encrypted));
    const joined = (type: string) =>
      ofType(events, type)
        .map((event) => event.delta)
        .join('');
    expect(joined('response.output_text.delta')).toBe('I will list the files.');
    expect(joined('response.reasoning_summary_text.delta')).toBe('Listing the directory helps.');
    expect(joined('response.function_call_arguments.delta')).toBe(shellArguments);
    expect(ofType(events, 'response.function_call_arguments.done')[0]).toMatchObject({
      item_id: 'fc_shell',
      output_index: 2,
      arguments: shellArguments,
    });
    const added = ofType(events, 'response.output_item.added').map((event) => event.item);
    expect(added[2]).toMatchObject({ id: 'fc_shell', call_id: 'call_shell', arguments: '' });
  });

  it('ends with response.completed carrying the full output and usage', async () => {
    fake.enqueue(reasonTalkCall);
    const events = eventDataOf(await responses(true, encrypted));
    const completed = events.at(-1);
    expect(completed.type).toBe('response.completed');
    const done = ofType(events, 'response.output_item.done').map((event) => event.item);
    expect(completed.response.output).toEqual(done);
    expect(done[0].encrypted_content).toBe('gAAAAB-opaque');
    expect(completed.response.usage.input_tokens_details.cached_tokens).toBe(usage.cacheRead);
    expect(completed.response.id).toBe(events[0].response.id);
  });

  it('ends a length stop with response.incomplete', async () => {
    fake.enqueue({ output: [{ text: 'truncated text' }], finishReason: 'length' });
    const last = eventDataOf(await responses(true)).at(-1);
    expect(last.type).toBe('response.incomplete');
    expect(last.response.status).toBe('incomplete');
  });

  it('fails mid-stream with an error event or with response.failed', async () => {
    fake.enqueue(
      { output: [{ text: 'some text here' }], midStreamError: { afterEvents: 4 } },
      {
        output: [{ text: 'some text here' }],
        midStreamError: {
          afterEvents: 3,
          type: 'rate_limit_exceeded',
          responsesEvent: 'response.failed',
        },
      },
    );
    const errored = eventDataOf(await responses(true));
    expect(errored).toHaveLength(5);
    expect(errored[4]).toEqual({
      type: 'error',
      code: 'server_error',
      message: expect.any(String),
      param: null,
      sequence_number: 4,
    });
    const failed = eventDataOf(await responses(true));
    expect(failed).toHaveLength(4);
    expect(failed[3]).toMatchObject({
      type: 'response.failed',
      sequence_number: 3,
      response: { status: 'failed', error: { code: 'rate_limit_exceeded' } },
    });
    expect(failed[3].response.id).toBe(failed[0].response.id);
  });

  it('answers input_tokens counts in the OpenAI shape', async () => {
    fake.enqueueTokenCount({ inputTokens: 77 });
    const answer = await callFakeUpstream(`${fake.url}/v1/responses/input_tokens`, {
      body: { model: 'gpt-fake', input: 'count me' },
    });
    expect(jsonOf(answer)).toEqual({ object: 'response.input_tokens', input_tokens: 77 });
  });
});
