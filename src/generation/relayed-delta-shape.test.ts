import { describe, expect, it } from 'vitest';

import { seededRandom as random } from '../../test/support/seeded-random.ts';
import type { UpstreamEvent } from '../providers/provider-codec.ts';
import { countAnthropicRelayedText, countChatRelayedText } from './count-relayed-text.ts';
import { anthropicDeltaSlot } from '../providers/anthropic/anthropic-delta-slot.ts';
import { openAIChatDeltaSlot as chatDeltaSlot } from '../providers/openai-chat/openai-chat-delta-slot.ts';
import { RelayedDeltaShape } from './relayed-delta-shape.ts';
import { createModelRenamer } from './rename-relayed-model.ts';
import { serializeUpstreamFrame } from './serialize-sse.ts';

const rename = createModelRenamer('catalog-model');

function chatChunk(delta: object, extra: object = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'upstream-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  });
}

/** What the relay does with an event it parses: the reference the shape must equal. */
function parsedFrame(event: UpstreamEvent, carriesModel: boolean) {
  const data: unknown = JSON.parse(event.data);
  return {
    data,
    frame: serializeUpstreamFrame(event.event, carriesModel ? rename(event.data) : event.data),
  };
}

function chatShape(first: string): RelayedDeltaShape {
  const shape = new RelayedDeltaShape(chatDeltaSlot, rename);
  const data: unknown = JSON.parse(first);
  shape.learn({ data: first }, data, countChatRelayedText(data), true);
  return shape;
}

describe('RelayedDeltaShape', () => {
  it('frames a later delta of the same shape as the parsing relay would, and counts its text', () => {
    const shape = chatShape(chatChunk({ content: 'Hello' }));
    for (const text of [' world', '', 'line\nbreak "quoted" \\ 😀', '\u0001']) {
      const event = { data: chatChunk({ content: text }) };
      const reference = parsedFrame(event, true);
      expect(shape.frame(event)).toBe(reference.frame);
      expect(shape.frame(event)).toContain('"model":"catalog-model"');
      expect(shape.characters).toBe(countChatRelayedText(reference.data));
    }
  });

  it('leaves every other event to the parser', () => {
    const shape = chatShape(chatChunk({ content: 'Hello' }));
    const others = [
      chatChunk({ content: 'x' }, { usage: { prompt_tokens: 1 } }),
      chatChunk({ role: 'assistant', content: 'x' }),
      chatChunk({ reasoning_content: 'x' }),
      JSON.stringify({ ...JSON.parse(chatChunk({ content: 'x' })), id: 'chatcmpl-2' }),
      chatChunk({ content: 'x' }).replace('"index":0', '"index": 0'),
      chatChunk({ content: 'x' }).slice(0, -3),
      chatChunk({ content: 'x' }).replace('"content":"x"', '"content":"x","content":"y"'),
      chatChunk({ content: 'x' }).replace('"x"', '"x","finish_reason":"stop"'),
      '[DONE]',
    ];
    for (const data of others) expect(shape.frame({ data }), data).toBeUndefined();
  });

  it('relays nothing invalid: every event it frames parses, and frames as parsed (fuzzed)', () => {
    const next = random(11);
    const shape = chatShape(chatChunk({ content: 'seed' }));
    const pieces = ['"', '\\', '\\u', '}', ']', ',', ':', 'a', '\n', '\u0000', '"x":1', '\\"'];
    const original = chatChunk({ content: 'some text' });
    const textStart = original.indexOf('some text');
    const afterText = original.length - textStart - 'some text'.length;
    let framed = 0;
    for (let index = 0; index < 20_000; index += 1) {
      let data = original;
      for (let edit = 0, edits = 1 + Math.floor(next() * 3); edit < edits; edit += 1) {
        // Most edits land in the text (or its quotes), the rest anywhere.
        const inText = next() < 0.7;
        const from = inText ? textStart - 1 : 0;
        const to = inText ? data.length - afterText + 1 : data.length;
        const at = from + Math.floor(next() * (to - from + 1));
        const cut = next() < 0.3 ? 1 : 0;
        data =
          data.slice(0, at) + pieces[Math.floor(next() * pieces.length)] + data.slice(at + cut);
      }
      const frame = shape.frame({ data });
      if (frame === undefined) continue;
      framed += 1;
      const reference = parsedFrame({ data }, true);
      expect(frame, data).toBe(reference.frame);
      expect(shape.characters, data).toBe(countChatRelayedText(reference.data));
    }
    // Edits inside the text keep the shape; the test must have seen both outcomes.
    expect(framed).toBeGreaterThan(2_000);
    expect(framed).toBeLessThan(20_000);
  });

  it('follows a tool call’s argument text', () => {
    const call = (args: string) =>
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
    const shape = chatShape(call('{"pa'));
    const event = { data: call('th": "/tmp"}') };
    expect(shape.frame(event)).toBe(parsedFrame(event, true).frame);
    expect(shape.characters).toBe('th": "/tmp"}'.length);
  });

  it('matches Anthropic deltas by event name and leaves their data unrenamed', () => {
    const delta = (text: string) =>
      JSON.stringify({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      });
    const shape = new RelayedDeltaShape(anthropicDeltaSlot, rename);
    const first = { event: 'content_block_delta', data: delta('Hi') };
    const data: unknown = JSON.parse(first.data);
    shape.learn(first, data, countAnthropicRelayedText(data), false);
    const event = { event: 'content_block_delta', data: delta(' there') };
    const reference = parsedFrame(event, false);
    expect(shape.frame(event)).toBe(reference.frame);
    expect(shape.characters).toBe(countAnthropicRelayedText(reference.data));
    expect(shape.frame({ event: 'message_delta', data: delta(' there') })).toBeUndefined();
  });
});
