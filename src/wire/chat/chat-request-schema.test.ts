import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from './chat-request-schema.ts';

const valid = {
  model: 'switchyard/m',
  messages: [
    { role: 'developer', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }], x_client_meta: { a: 1 } },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: 'ok' },
  ],
  stream: true,
  stream_options: { include_usage: true },
  stop: null,
  some_future_field: true,
};

describe('chatRequestSchema', () => {
  it('accepts a tool round trip with null assistant content and extra fields', () => {
    expect(Value.Check(chatRequestSchema, valid)).toBe(true);
  });

  it.each([
    ['a missing model', { ...valid, model: undefined }],
    ['an empty model', { ...valid, model: '' }],
    ['no messages', { ...valid, messages: [] }],
    ['an unknown role', { ...valid, messages: [{ role: 'function', content: 'x' }] }],
    ['a message without content', { ...valid, messages: [{ role: 'user' }] }],
    ['a non-boolean stream', { ...valid, stream: 'yes' }],
    ['a fractional max_tokens', { ...valid, max_tokens: 1.5 }],
    ['a numeric stop', { ...valid, stop: 3 }],
  ])('rejects %s', (_name, body) => {
    expect(Value.Check(chatRequestSchema, body)).toBe(false);
  });
});
