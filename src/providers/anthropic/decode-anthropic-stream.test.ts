import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { readAnthropicSseFixture } from './__fixtures__/read-anthropic-sse-fixture.ts';
import { createAnthropicStreamDecoder } from './decode-anthropic-stream.ts';

const call: GenerationCall = { model: 'm', messages: [], tools: [], stream: true };

function decodeAll(
  events: ReturnType<typeof readAnthropicSseFixture>,
  withEnd = true,
): StreamPart[] {
  const decoder = createAnthropicStreamDecoder(call);
  const parts = events.flatMap((event) => decoder.push(event));
  return withEnd ? [...parts, ...decoder.end()] : parts;
}

function rawData(events: ReturnType<typeof readAnthropicSseFixture>, type: string): unknown[] {
  return events
    .map((event) => JSON.parse(event.data) as Record<string, unknown>)
    .filter((data) => data.type === type);
}

describe('createAnthropicStreamDecoder', () => {
  it('maps message_start usage and the cumulative message_delta usage exactly, per cache TTL', () => {
    const parts = decodeAll(readAnthropicSseFixture('stream-text-cached.sse'));
    const start = parts[0];
    expect(start).toMatchObject({
      type: 'response-start',
      id: 'msg_01Hb4yXqL2sVw8K9fTz3nD5P',
      model: 'claude-sonnet-4-6',
    });
    const expectedInput = {
      total: 12 + 18230 + 2048,
      noCache: 12,
      cacheRead: 18230,
      cacheWrite5m: 1536,
      cacheWrite1h: 512,
    };
    expect(start?.type === 'response-start' && start.usage?.inputTokens).toEqual(expectedInput);
    const finish = parts.at(-1);
    expect(finish).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { inputTokens: expectedInput, outputTokens: { total: 9, reasoning: 0 } },
    });
  });

  it('emits text parts addressed by the block index and ignores ping', () => {
    const parts = decodeAll(readAnthropicSseFixture('stream-text-cached.sse'));
    expect(parts.slice(1, -1)).toEqual([
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'Hello' },
      { type: 'text-delta', id: '0', delta: ' — naïve café ☕' },
      { type: 'text-end', id: '0' },
    ]);
  });

  it('keeps parallel tool calls apart and their argument fragments unchanged', () => {
    const events = readAnthropicSseFixture('stream-thinking-parallel-tools.sse');
    const parts = decodeAll(events);
    const toolIds = ['toolu_01A9bT3kLm7Qx2Vn5Rz8Wc4E', 'toolu_01K4mP8sDx2Wq6Yb3Nv9Tj7F'];
    for (const [position, id] of toolIds.entries()) {
      expect(parts).toContainEqual({ type: 'tool-input-start', id, toolName: 'get_weather' });
      const fragments = parts.flatMap((part) =>
        part.type === 'tool-input-delta' && part.id === id ? [part.delta] : [],
      );
      const recorded = rawData(events, 'content_block_delta')
        .filter((data) => (data as { index: number }).index === position + 2)
        .map((data) => (data as { delta: { partial_json: string } }).delta.partial_json)
        .filter((fragment) => fragment !== '');
      expect(fragments).toEqual(recorded);
      expect(parts).toContainEqual({ type: 'tool-input-end', id });
    }
    const joined = (id: string) =>
      parts
        .flatMap((part) => (part.type === 'tool-input-delta' && part.id === id ? [part.delta] : []))
        .join('');
    expect(JSON.parse(joined(toolIds[0] as string))).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(JSON.parse(joined(toolIds[1] as string))).toEqual({ city: 'Tōkyō' });
  });

  it('passes the thinking signature on byte-identical at reasoning-end', () => {
    const events = readAnthropicSseFixture('stream-thinking-parallel-tools.sse');
    const recorded = (
      rawData(events, 'content_block_delta') as Array<{
        delta: { type: string; signature?: string };
      }>
    ).find((data) => data.delta.type === 'signature_delta')?.delta.signature;
    const parts = decodeAll(events);
    expect(parts.slice(1, 5)).toEqual([
      { type: 'reasoning-start', id: '0', provider: 'anthropic' },
      { type: 'reasoning-delta', id: '0', delta: 'Two independent lookups;' },
      { type: 'reasoning-delta', id: '0', delta: ' run both at once.' },
      { type: 'reasoning-end', id: '0', signature: recorded },
    ]);
  });

  it('reports the tool_use stop reason and output tokens from message_delta', () => {
    const parts = decodeAll(readAnthropicSseFixture('stream-thinking-parallel-tools.sse'));
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' && finish.finishReason).toEqual({
      unified: 'tool-calls',
      raw: 'tool_use',
    });
    expect(finish?.type === 'finish' && finish.usage.outputTokens.total).toBe(187);
    expect(finish?.type === 'finish' && finish.usage.inputTokens.total).toBe(3410);
  });

  it('turns an upstream error event into an error part and reads nothing after it', () => {
    const events = readAnthropicSseFixture('stream-overloaded-error.sse');
    const parts = decodeAll([
      ...events,
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ]);
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && last.error).toMatchObject({ code: 'not_ready', status: 503 });
    expect(last?.type === 'error' && last.error.message).toContain('Overloaded');
    expect(parts.filter((part) => part.type === 'error')).toHaveLength(1);
  });

  it('reports a stream that closed before message_stop', () => {
    const events = readAnthropicSseFixture('stream-text-cached.sse').slice(0, -1);
    const parts = decodeAll(events);
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'upstream_error', status: 502 },
    });
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('reports unreadable event data instead of throwing', () => {
    const decoder = createAnthropicStreamDecoder(call);
    expect(decoder.push({ event: 'message_start', data: '{"type":' })).toMatchObject([
      { type: 'error', error: { code: 'upstream_error' } },
    ]);
    expect(decoder.end()).toEqual([]);
  });

  it('carries redacted thinking whole at its start', () => {
    const decoder = createAnthropicStreamDecoder(call);
    const parts = [
      '{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}',
      '{"type":"content_block_stop","index":0}',
    ].flatMap((data) => decoder.push({ data }));
    expect(parts).toEqual([
      { type: 'reasoning-start', id: '0', provider: 'anthropic', redactedData: 'EmwKAhgB' },
      { type: 'reasoning-end', id: '0' },
    ]);
  });

  it('reads deltas of one shape (without a parse) as written, and still stops at a broken one', () => {
    const delta = (text: string) =>
      JSON.stringify({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      });
    const texts = ['Hel', 'lo "w"\n', '\\ ok', '😀 \u0001', 'end'];
    const decoder = createAnthropicStreamDecoder(call);
    const parts = [
      {
        event: 'content_block_start',
        data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      },
      ...texts.map((text) => ({ event: 'content_block_delta', data: delta(text) })),
      { event: 'content_block_delta', data: delta('x').replace('"x"', '"a"b"') },
    ].flatMap((event) => decoder.push(event));
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)).toEqual(
      texts,
    );
    expect(parts.at(-1)).toMatchObject({ type: 'error' });
  });
});
