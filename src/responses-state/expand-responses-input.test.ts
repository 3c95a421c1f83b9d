import { describe, expect, it } from 'vitest';
import { historyOf, inputItemsOf } from './expand-responses-input.ts';

describe('inputItemsOf', () => {
  it('reads a string input as one user message and keeps an item list as it is', () => {
    expect(inputItemsOf('Hello')).toEqual([{ role: 'user', content: 'Hello' }]);
    const items = [{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }];
    expect(inputItemsOf(items)).toBe(items);
  });
});

describe('historyOf', () => {
  const input = [{ role: 'user', content: 'Weather in Paris?' }];

  it('continues with the turn’s input, then its output as input items', () => {
    const functionCall = {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    };
    const signedReasoning = {
      id: 'rs_1',
      type: 'reasoning',
      summary: [],
      encrypted_content: 'opaque-token',
    };
    expect(historyOf({ input, output: [signedReasoning, functionCall] })).toEqual([
      ...input,
      signedReasoning,
      functionCall,
    ]);
  });

  it('drops a message’s id, which only names an item kept at the upstream', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Sunny.', annotations: [], logprobs: [] }],
    };
    const [, replayed] = historyOf({ input, output: [message] });
    expect(replayed).toEqual({
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: message.content,
    });
  });

  it('leaves out a reasoning item that is only a reference, keeps one that carries text', () => {
    const reference = { id: 'rs_ref', type: 'reasoning', summary: [] };
    const summarised = {
      id: 'rs_text',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Thought about it.' }],
    };
    expect(historyOf({ input, output: [reference, summarised] })).toEqual([...input, summarised]);
  });

  it('never changes the stored turn', () => {
    const output = [{ id: 'msg_1', type: 'message', role: 'assistant', content: [] }];
    historyOf({ input, output });
    expect(output[0]).toHaveProperty('id', 'msg_1');
    expect(input).toHaveLength(1);
  });
});
