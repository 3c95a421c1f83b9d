import { describe, expect, it } from 'vitest';
import { lastReferencedId, ownItemsStart } from './match-stored-history.ts';

const question = { role: 'user', content: 'Weather?' };
const storedAnswer = {
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
};
const storedCall = {
  type: 'function_call',
  id: 'fc_1',
  status: 'completed',
  call_id: 'call_1',
  name: 'get_weather',
  arguments: '{"city": "Oslo", "unit": "C"}',
};
const history = [question, storedAnswer, storedCall];

describe('ownItemsStart', () => {
  it('finds where the own items begin after exactly the stored history', () => {
    const next = { role: 'user', content: 'Tomorrow?' };
    expect(ownItemsStart([...history, next], history)).toBe(3);
    expect(ownItemsStart(history, history)).toBe(3);
  });

  it('ignores id, status, key order and the spelling of call arguments, nothing else', () => {
    const sentCall = { name: 'get_weather', call_id: 'call_1', type: 'function_call' };
    const input = [
      question,
      { ...storedAnswer, id: 'msg_1', status: 'completed' },
      { ...sentCall, arguments: '{"unit":"C","city":"Oslo"}' },
    ];
    expect(ownItemsStart(input, history)).toBe(3);
    expect(
      ownItemsStart(
        [question, storedAnswer, { ...sentCall, arguments: '{"city":"Bergen"}' }],
        history,
      ),
    ).toBeUndefined();
    const { annotations: _annotations, ...part } = storedAnswer.content[0] as Record<
      string,
      unknown
    >;
    expect(
      ownItemsStart([question, { ...storedAnswer, content: [part] }, storedCall], history),
    ).toBeUndefined();
  });

  it('passes over reasoning that carries nothing, and needs the whole history', () => {
    const empty = { type: 'reasoning', id: 'rs_1', summary: [] };
    expect(ownItemsStart([question, empty, storedAnswer, storedCall, empty], history)).toBe(4);
    expect(ownItemsStart([question, storedAnswer], history)).toBeUndefined();
    expect(ownItemsStart([storedAnswer, question, storedCall], history)).toBeUndefined();
  });
});

describe('lastReferencedId', () => {
  it('names the last reference only', () => {
    const ref = (id: unknown) => ({ type: 'item_reference', id });
    expect(lastReferencedId([ref('rs_1'), question, ref('msg_2'), question])).toBe('msg_2');
    expect(lastReferencedId([ref('rs_1'), ref(7)])).toBeUndefined();
    expect(lastReferencedId([question])).toBeUndefined();
  });
});
