import { describe, expect, it } from 'vitest';
import { ApiError } from '../../canonical/generation-error.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import type { SurfaceEvent } from '../surface-codec.ts';
import { accumulateMessagesStream } from './__fixtures__/accumulate-messages-stream.ts';
import { createMessagesStreamEncoder } from './create-messages-stream-encoder.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';

const context = { responseId: 'msg_gateway_1', model: 'public-model', createdAt: 1_800_000_000 };
const startUsage = usageFromParts({
  noCache: 40,
  cacheRead: 1000,
  cacheWrite5m: 300,
  cacheWrite1h: 200,
  output: 1,
});
const finalUsage = usageFromParts({
  noCache: 40,
  cacheRead: 1000,
  cacheWrite5m: 300,
  cacheWrite1h: 200,
  output: 57,
});

function encodeAll(parts: StreamPart[]): SurfaceEvent[] {
  const encoder = createMessagesStreamEncoder(context);
  return [...parts.flatMap((part) => encoder.encode(part)), ...encoder.end()];
}

const finish = (
  raw: string | undefined,
  unified: 'stop' | 'tool-calls' | 'length' = 'stop',
): StreamPart => ({
  type: 'finish',
  finishReason: { unified, raw },
  usage: finalUsage,
});

/** Two tool calls whose parts interleave: the second one's wait while the first is on the wire. */
const parallelToolCalls: StreamPart[] = [
  { type: 'tool-input-start', id: 'call_a', toolName: 'get_weather' },
  { type: 'tool-input-start', id: 'call_b', toolName: 'get_time' },
  { type: 'tool-input-delta', id: 'call_a', delta: '{"city":' },
  { type: 'tool-input-delta', id: 'call_b', delta: '{"zone":"Europe/' },
  { type: 'tool-input-delta', id: 'call_a', delta: '"Oslo"}' },
  { type: 'tool-input-delta', id: 'call_b', delta: 'Oslo"}' },
  { type: 'tool-input-end', id: 'call_b' },
  { type: 'tool-input-end', id: 'call_a' },
];

describe('createMessagesStreamEncoder', () => {
  it('writes its string deltas from a template per block exactly as JSON.stringify would', () => {
    const tricky = ['Say "hi"', 'a\\b\n', '✓ 🚀', '\u2028', '</script>'];
    const events = encodeAll([
      { type: 'response-start' },
      { type: 'reasoning-start', id: 'r', provider: 'anthropic' },
      ...tricky.map((delta): StreamPart => ({ type: 'reasoning-delta', id: 'r', delta })),
      { type: 'reasoning-end', id: 'r', signature: 'sig' },
      { type: 'text-start', id: 't' },
      ...tricky.map((delta): StreamPart => ({ type: 'text-delta', id: 't', delta })),
      { type: 'text-end', id: 't' },
      ...parallelToolCalls,
      finish('tool_calls', 'tool-calls'),
    ]);
    const written = events.filter((event) => event.json !== undefined);
    expect(written).toHaveLength(2 * tricky.length + 4);
    for (const event of written) expect(event.json).toBe(JSON.stringify(event.data));
    expect(new Set(written.map((event) => (event.data as { index: number }).index))).toEqual(
      new Set([0, 1, 2, 3]),
    );
  });

  it('renders text with the prompt size in message_start and cumulative usage in message_delta', () => {
    const events = encodeAll([
      { type: 'response-start', id: 'upstream-id', usage: startUsage },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'Hel' },
      { type: 'text-delta', id: '0', delta: 'lo' },
      { type: 'text-end', id: '0' },
      finish('end_turn'),
    ]);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]?.data).toMatchObject({
      message: {
        id: 'msg_gateway_1',
        model: 'public-model',
        usage: {
          input_tokens: 40,
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 500,
          cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 200 },
        },
      },
    });
    expect(events[5]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        input_tokens: 40,
        output_tokens: 57,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 500,
        cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 200 },
      },
    });
    const { message } = accumulateMessagesStream(events);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });

  it('sends the signature as the last delta before its thinking block stops', () => {
    const signature = 'EqQBCkgIBhAB+/xyz==';
    const events = encodeAll([
      { type: 'response-start' },
      { type: 'reasoning-start', id: '0', provider: 'anthropic' },
      { type: 'reasoning-delta', id: '0', delta: 'think' },
      { type: 'reasoning-end', id: '0', signature },
      finish('end_turn'),
    ]);
    const deltas = events
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => event.data);
    expect(deltas.at(-1)).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature },
    });
    const signatureAt = events.findIndex(
      (event) => (event.data as { delta?: { type: string } }).delta?.type === 'signature_delta',
    );
    expect(events[signatureAt + 1]?.event).toBe('content_block_stop');
    expect(accumulateMessagesStream(events).message.content).toEqual([
      { type: 'thinking', thinking: 'think', signature },
    ]);
  });

  it('gives parallel tool calls separate indexes and keeps their argument fragments unchanged', () => {
    const events = encodeAll([
      { type: 'response-start' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Calling.' },
      { type: 'text-end', id: 't' },
      ...parallelToolCalls,
      finish('tool_calls', 'tool-calls'),
    ]);
    const { message } = accumulateMessagesStream(events);
    expect(message.content).toEqual([
      { type: 'text', text: 'Calling.' },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'call_b', name: 'get_time', input: { zone: 'Europe/Oslo' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    const fragments = events.flatMap((event) => {
      const data = event.data as { index?: number; delta?: { partial_json?: string } };
      return data.delta?.partial_json !== undefined ? [[data.index, data.delta.partial_json]] : [];
    });
    expect(fragments).toEqual([
      [1, '{"city":'],
      [1, '"Oslo"}'],
      [2, '{"zone":"Europe/'],
      [2, 'Oslo"}'],
    ]);
  });

  it('streams the first tool call as it arrives while the second waits', () => {
    const encoder = createMessagesStreamEncoder(context);
    encoder.encode({ type: 'response-start' });
    expect(encoder.encode({ type: 'tool-input-start', id: 'a', toolName: 'x' })).toHaveLength(1);
    expect(encoder.encode({ type: 'tool-input-start', id: 'b', toolName: 'y' })).toEqual([]);
    expect(encoder.encode({ type: 'tool-input-delta', id: 'a', delta: '{}' })).toHaveLength(1);
    expect(encoder.encode({ type: 'tool-input-delta', id: 'b', delta: '{}' })).toEqual([]);
    expect(encoder.encode({ type: 'tool-input-end', id: 'a' }).map((event) => event.event)).toEqual(
      ['content_block_stop', 'content_block_start', 'content_block_delta'],
    );
  });

  it('renders a redacted thinking block whole at its start', () => {
    const events = encodeAll([
      { type: 'reasoning-start', id: '0', provider: 'anthropic', redactedData: 'EmwKAhgB' },
      { type: 'reasoning-end', id: '0' },
      finish('end_turn'),
    ]);
    expect(accumulateMessagesStream(events).message.content).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgB' },
    ]);
  });

  it('renders OpenAI reasoning as a thinking block the decoder turns back into the same item', () => {
    const events = encodeAll([
      { type: 'response-start' },
      { type: 'reasoning-start', id: 'rs_1', provider: 'openai', itemId: 'rs_1' },
      { type: 'reasoning-delta', id: 'rs_1', delta: 'First.' },
      { type: 'reasoning-delta', id: 'rs_1', delta: '\n\nSecond.' },
      {
        type: 'reasoning-end',
        id: 'rs_1',
        encryptedContent: 'gAAAAB-opaque',
        summary: ['First.', 'Second.'],
      },
      finish('completed'),
    ]);
    const { message } = accumulateMessagesStream(events);
    const block = message.content[0];
    expect(block?.type).toBe('thinking');
    expect(block?.signature).toMatch(/^sy1\.openai\./);
    const decoded = decodeMessagesRequest({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: message.content },
      ],
    });
    expect(decoded.issues).toEqual([]);
    expect(decoded.value.messages[1]?.content).toEqual([
      {
        type: 'reasoning',
        text: 'First.\n\nSecond.',
        provider: 'openai',
        itemId: 'rs_1',
        encryptedContent: 'gAAAAB-opaque',
        summary: ['First.', 'Second.'],
      },
    ]);
  });

  it('leaves unsigned reasoning with an empty signature', () => {
    const events = encodeAll([
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
      { type: 'reasoning-end', id: 'r' },
      finish('stop'),
    ]);
    expect(events.some((event) => JSON.stringify(event.data).includes('signature_delta'))).toBe(
      false,
    );
    expect(accumulateMessagesStream(events).message.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: '' },
    ]);
  });

  it.each([
    ['max_tokens', 'length', 'max_tokens'],
    ['length', 'length', 'max_tokens'],
    ['stop_sequence', 'stop', 'stop_sequence'],
    [undefined, 'tool-calls', 'tool_use'],
  ] as const)('renders raw %s / unified %s as %s', (raw, unified, expected) => {
    const events = encodeAll([{ type: 'response-start' }, finish(raw, unified)]);
    expect(accumulateMessagesStream(events).message.stop_reason).toBe(expected);
  });

  it('renders an error part as an error event in shape B and nothing after it', () => {
    const encoder = createMessagesStreamEncoder(context);
    encoder.encode({ type: 'response-start' });
    encoder.encode({ type: 'text-start', id: '0' });
    const error = new ApiError('not_ready').toGenerationError();
    expect(encoder.encode({ type: 'error', error })).toEqual([
      {
        event: 'error',
        data: { type: 'error', error: { type: 'overloaded_error', message: error.message } },
      },
    ]);
    expect(encoder.encode(finish('end_turn'))).toEqual([]);
    expect(encoder.end()).toEqual([]);
  });

  it('closes blocks the upstream left open before message_delta', () => {
    const events = encodeAll([
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'cut' },
      { type: 'tool-input-start', id: 'c', toolName: 't' },
      finish('max_tokens', 'length'),
    ]);
    const { message, stopped } = accumulateMessagesStream(events);
    expect(stopped).toBe(true);
    expect(message.content).toEqual([
      { type: 'text', text: 'cut' },
      { type: 'tool_use', id: 'c', name: 't', input: {} },
    ]);
  });
});

describe('createMessagesStreamEncoder with thinking.display "omitted" (decisions/0011)', () => {
  const parts: StreamPart[] = [
    { type: 'response-start', id: 'upstream-id', usage: startUsage },
    { type: 'reasoning-start', id: 'r', provider: 'openai', itemId: 'rs_1' },
    { type: 'reasoning-delta', id: 'r', delta: 'Thinking hard.' },
    { type: 'reasoning-end', id: 'r', encryptedContent: 'gAAA' },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Answer.' },
    { type: 'text-end', id: 't' },
    finish('end_turn'),
  ];

  function encodeWith(request: Record<string, unknown>): SurfaceEvent[] {
    const encoder = createMessagesStreamEncoder(context, request);
    return parts.flatMap((part) => encoder.encode(part));
  }

  it('sends the thinking block with its signature and no thinking text', () => {
    const shown = encodeWith({ thinking: { type: 'adaptive' } });
    const omitted = encodeWith({ thinking: { type: 'adaptive', display: 'omitted' } });
    const deltaTypes = (events: SurfaceEvent[]) =>
      events.flatMap((event) =>
        event.event === 'content_block_delta'
          ? [(event.data as { delta: { type: string } }).delta.type]
          : [],
      );
    expect(deltaTypes(shown)).toEqual(['thinking_delta', 'signature_delta', 'text_delta']);
    expect(deltaTypes(omitted)).toEqual(['signature_delta', 'text_delta']);
    const { message } = accumulateMessagesStream(omitted);
    const { message: shownMessage } = accumulateMessagesStream(shown);
    // The signature still carries the summary, so the next turn is unchanged.
    expect(message.content[0]).toEqual({ ...shownMessage.content[0], thinking: '' });
    expect(message.content[1]).toEqual({ type: 'text', text: 'Answer.' });
  });
});
