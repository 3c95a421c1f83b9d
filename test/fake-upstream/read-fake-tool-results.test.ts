import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeUpstream } from './fake-upstream-server.ts';
import { echoLastToolResult, readFakeToolResults } from './read-fake-tool-results.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const anthropicBody = {
  model: 'm',
  max_tokens: 64,
  messages: [
    { role: 'user', content: 'read it' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_0', content: 'older', is_error: true },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'line one\n' },
            { type: 'text', text: 'line two' },
          ],
        },
      ],
    },
  ],
};

const chatBody = {
  model: 'm',
  messages: [
    { role: 'user', content: 'read it' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'cat', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'chat result' },
  ],
};

const responsesBody = {
  model: 'm',
  input: [
    { type: 'function_call', id: 'fc_1', call_id: 'call_9', name: 'cat', arguments: '{}' },
    {
      type: 'function_call_output',
      call_id: 'call_9',
      output: [{ type: 'input_text', text: 'responses result' }],
    },
  ],
};

describe('readFakeToolResults', () => {
  it('reads tool results in each dialect, with their call ids', async () => {
    await callFakeUpstream(`${fake.url}/v1/messages`, { body: anthropicBody });
    await callFakeUpstream(`${fake.url}/v1/chat/completions`, { body: chatBody });
    await callFakeUpstream(`${fake.url}/v1/responses`, { body: responsesBody });
    const [anthropic, chat, responses] = fake.requests.map(readFakeToolResults);
    expect(anthropic).toEqual([
      { toolCallId: 'toolu_0', text: 'older', isError: true },
      { toolCallId: 'toolu_1', text: 'line one\nline two' },
    ]);
    expect(chat).toEqual([{ toolCallId: 'call_1', text: 'chat result' }]);
    expect(responses).toEqual([{ toolCallId: 'call_9', text: 'responses result' }]);
  });
});

describe('echoLastToolResult', () => {
  it('answers with the last tool result the request carried', async () => {
    fake.enqueue(echoLastToolResult('Saw: '), echoLastToolResult());
    const message = jsonOf(
      await callFakeUpstream(`${fake.url}/v1/messages`, { body: anthropicBody }),
    );
    expect(message.content).toEqual([{ type: 'text', text: 'Saw: line one\nline two' }]);
    const plain = jsonOf(
      await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
        body: { model: 'm', messages: [{ role: 'user', content: 'no tools here' }] },
      }),
    );
    expect(plain.choices[0].message.content).toBe(
      'The tool said: fake-upstream: no tool result received',
    );
  });
});
