import { describe, expect, it } from 'vitest';
import { readAnthropicSseFixture } from '../../providers/anthropic/__fixtures__/read-anthropic-sse-fixture.ts';
import { createAnthropicStreamDecoder } from '../../providers/anthropic/decode-anthropic-stream.ts';
import { accumulateMessagesStream } from './__fixtures__/accumulate-messages-stream.ts';
import { createMessagesStreamEncoder } from './create-messages-stream-encoder.ts';

/**
 * Recorded Anthropic streams decoded to canonical parts and encoded again must give the client
 * the same content events the upstream sent: the translated path loses nothing the fast path
 * would have relayed (docs/architecture.md).
 */
const context = { responseId: 'msg_gateway', model: 'public-model', createdAt: 0 };
const call = { model: 'public-model', messages: [], tools: [], stream: true };

function translate(name: string) {
  const upstream = readAnthropicSseFixture(name);
  const decoder = createAnthropicStreamDecoder(call);
  const encoder = createMessagesStreamEncoder(context);
  const parts = [...upstream.flatMap((event) => decoder.push(event)), ...decoder.end()];
  const events = [...parts.flatMap((part) => encoder.encode(part)), ...encoder.end()];
  const original = upstream
    .map((event) => JSON.parse(event.data) as Record<string, unknown> & { type: string })
    .filter((data) => data.type !== 'ping')
    // An empty argument fragment carries nothing; the decoder does not pass it on.
    .filter((data) => (data.delta as { partial_json?: string } | undefined)?.partial_json !== '');
  return { events, original };
}

describe.each(['stream-text-cached.sse', 'stream-thinking-parallel-tools.sse'])(
  'relaying %s',
  (name) => {
    const { events, original } = translate(name);

    it('emits the same event kinds in the same order', () => {
      expect(events.map((event) => event.event)).toEqual(original.map((data) => data.type));
    });

    it('emits content events identical to the upstream ones', () => {
      const content = (list: unknown[]) =>
        list.filter((data) => String((data as { type: string }).type).startsWith('content_block'));
      expect(content(events.map((event) => event.data))).toEqual(content(original));
    });

    it('reports the same usage numbers and stop reason', () => {
      const upstream = accumulateMessagesStream(
        original.map((data) => ({ event: data.type, data })),
      );
      const relayed = accumulateMessagesStream(events);
      expect(relayed.message.content).toEqual(upstream.message.content);
      expect(relayed.message.stop_reason).toBe(upstream.message.stop_reason);
      for (const key of [
        'input_tokens',
        'output_tokens',
        'cache_read_input_tokens',
        'cache_creation_input_tokens',
      ]) {
        expect(relayed.message.usage[key]).toBe(upstream.message.usage[key]);
      }
    });
  },
);
