import { describe, expect, it } from 'vitest';

import { seededRandom as random } from '../../../test/support/seeded-random.ts';
import { openAIChatDeltaSlot } from '../openai-chat/openai-chat-delta-slot.ts';
import { decodedStringLength, DeltaShape } from './delta-shape.ts';

/** JSON.parse's answer for a string body: its decoded length, or -1 when it is not valid. */
function parsedLength(body: string): number {
  try {
    return (JSON.parse(`"${body}"`) as string).length;
  } catch {
    return -1;
  }
}

describe('decodedStringLength', () => {
  it('agrees with JSON.parse on escapes, surrogates and invalid bodies', () => {
    const bodies = [
      '',
      'plain text',
      'line\\nbreak',
      'quote \\" and backslash \\\\',
      '\\u00e9t\\u00E9 \\ud83d\\ude00',
      '\\/ \\b\\f\\r\\t',
      'emoji 😀 and \ud800 lone',
      'unescaped " quote',
      'trailing \\',
      'bad \\x escape',
      'short \\u12 escape',
      'not hex \\u12G4',
      'raw \u0001 control',
      'raw \n newline',
      '\\\\"',
    ];
    for (const body of bodies) expect(decodedStringLength(body), body).toBe(parsedLength(body));
  });

  it('agrees with JSON.parse on 20 000 random bodies', () => {
    const next = random(7);
    const alphabet = [
      'a',
      'Z',
      ' ',
      '"',
      '\\',
      'u',
      '0',
      'f',
      'G',
      'n',
      '/',
      '\u0000',
      '\u001f',
      'é',
      '\ud83d',
      '\ude00',
    ];
    for (let index = 0; index < 20_000; index += 1) {
      let body = '';
      const length = Math.floor(next() * 12);
      for (let at = 0; at < length; at += 1) body += alphabet[Math.floor(next() * alphabet.length)];
      expect(decodedStringLength(body), JSON.stringify(body)).toBe(parsedLength(body));
    }
  });
});

function chunk(content: string, id = 'chatcmpl-1'): string {
  return JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });
}

function learnt(first: string): DeltaShape {
  const shape = new DeltaShape(openAIChatDeltaSlot);
  expect(shape.learn(first, JSON.parse(first))).toBe(true);
  return shape;
}

describe('DeltaShape', () => {
  it('reads a delta of the learnt shape as JSON.parse would', () => {
    const shape = learnt(chunk('Hello'));
    for (const text of [' world', '', 'a "quoted" \\ line\n', '😀\u0001']) {
      const data = chunk(text);
      expect(shape.read(data)).toEqual(JSON.parse(data));
      expect(shape.bodyLength).toBe(text.length);
    }
    expect(shape.read(chunk('x', 'chatcmpl-2'))).toBeUndefined();
  });

  it('reads nothing that JSON.parse would refuse, and reads the rest as it does (fuzzed)', () => {
    const next = random(5);
    const shape = learnt(chunk('seed'));
    const pieces = ['"', '\\', '\\u', '\\u00', '}', ',', 'x', '\t', '\u0000', '\\"', 'é'];
    let read = 0;
    for (let index = 0; index < 20_000; index += 1) {
      let data = chunk('some text');
      const at = data.indexOf('some text') - 1 + Math.floor(next() * 12);
      data = data.slice(0, at) + pieces[Math.floor(next() * pieces.length)] + data.slice(at);
      const value = shape.read(data);
      if (value === undefined) continue;
      read += 1;
      expect(value, data).toEqual(JSON.parse(data));
    }
    expect(read).toBeGreaterThan(2_000);
    expect(read).toBeLessThan(20_000);
  });

  it('stops learning once its shapes stop matching: deltas that all differ', () => {
    const shape = new DeltaShape(openAIChatDeltaSlot);
    const learns = Array.from({ length: 8 }, (_, index) => {
      const data = chunk('x', `chatcmpl-${index}`);
      return shape.learn(data, JSON.parse(data));
    });
    expect(learns).toEqual([true, true, true, true, false, false, false, false]);
    // A match starts it learning again.
    expect(shape.body(chunk('y', 'chatcmpl-3'))).toBe('y');
    const data = chunk('x', 'chatcmpl-9');
    expect(shape.learn(data, JSON.parse(data))).toBe(true);
  });

  it('learns from the first delta with text, not the empty one that opens a stream', () => {
    const shape = new DeltaShape(openAIChatDeltaSlot);
    const opening = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      model: 'm',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    expect(shape.learn(opening, JSON.parse(opening))).toBe(false);
    expect(shape.learnt).toBe(false);
    expect(shape.learn(chunk('Hello'), JSON.parse(chunk('Hello')))).toBe(true);
    expect(shape.body(chunk(' world'))).toBe(' world');
  });

  it('learns only deltas written in compact form', () => {
    const shape = new DeltaShape(openAIChatDeltaSlot);
    const spaced = chunk('Hello').replaceAll(',"', ', "');
    expect(shape.learn(spaced, JSON.parse(spaced))).toBe(false);
    const finish = JSON.stringify({
      choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }],
    });
    expect(shape.learn(finish, JSON.parse(finish))).toBe(false);
    expect(shape.learnt).toBe(false);
  });
});
