import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import { readGeminiSseFixture } from './__fixtures__/read-gemini-fixture.ts';
import { createGeminiStreamDecoder } from './decode-gemini-stream.ts';

const call: GenerationCall = { model: 'switchyard/gemini', messages: [], tools: [], stream: true };

function decodeAll(events: UpstreamEvent[]): StreamPart[] {
  const decoder = createGeminiStreamDecoder(call);
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

describe('createGeminiStreamDecoder', () => {
  it('streams thoughts then text as blocks, the closing signature as its own block, usage last', () => {
    const parts = decodeAll(readGeminiSseFixture('stream-thoughts-text.sse'));
    expect(parts).toEqual([
      {
        type: 'response-start',
        id: 'x7FiaKqFL8XW7M8Pk-yVkAQ',
        model: 'gemini-2.5-flash',
        usage: {
          inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
          outputTokens: { total: 0, reasoning: 0 },
        },
      },
      { type: 'reasoning-start', id: '0', provider: 'google' },
      {
        type: 'reasoning-delta',
        id: '0',
        delta: "**Counting letters**\n\nI need to count the r's in strawberry.",
      },
      { type: 'reasoning-delta', id: '0', delta: ' s-t-r-a-w-b-e-r-r-y has three.' },
      { type: 'reasoning-end', id: '0' },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'There are three' },
      { type: 'text-delta', id: '1', delta: ' r\'s in "strawberry".' },
      { type: 'text-end', id: '1' },
      { type: 'reasoning-start', id: '2', provider: 'google' },
      {
        type: 'reasoning-end',
        id: '2',
        signature: 'EpcDCpQDAXLI2nyq3y0fY5w1uXvOQ8gS0Qv1fJrM2Kb4Z7n1w9a0c6e8Bq==',
      },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'STOP' },
        usage: {
          inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
          outputTokens: { total: 129, reasoning: 119 },
        },
      },
    ]);
  });

  it('emits whole function calls with minted ids, the signature before the first', () => {
    const parts = decodeAll(readGeminiSseFixture('stream-parallel-function-calls.sse'));
    const tools = parts.filter(
      (part) => part.type.startsWith('tool-') || part.type.startsWith('reasoning'),
    );
    expect(tools).toEqual([
      { type: 'reasoning-start', id: '1', provider: 'google' },
      {
        type: 'reasoning-end',
        id: '1',
        signature: 'Cp4BAXLI2nw6S0c5ZkH3kQ0zG1yFf3kP9u2aTq8Vd1L0sR7mY4xN==',
      },
      { type: 'tool-input-start', id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_0', toolName: 'get_weather' },
      {
        type: 'tool-input-delta',
        id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_0',
        delta: '{"location":"Paris, FR"}',
      },
      { type: 'tool-input-end', id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_0' },
      { type: 'tool-input-start', id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_1', toolName: 'get_weather' },
      {
        type: 'tool-input-delta',
        id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_1',
        delta: '{"location":"London, UK"}',
      },
      { type: 'tool-input-end', id: 'call_c2NiaOKNBOSb7M8PjfPPoAw_1' },
    ]);
    // The text block closes before the signed call.
    expect(parts.findIndex((part) => part.type === 'text-end')).toBeLessThan(
      parts.findIndex((part) => part.type === 'reasoning-start'),
    );
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'STOP' },
      usage: {
        inputTokens: { total: 96, noCache: 96, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
        outputTokens: { total: 135, reasoning: 100 },
      },
    });
  });

  it('reports a stream that closed before any finish reason as an upstream error', () => {
    const parts = decodeAll(readGeminiSseFixture('stream-truncated.sse'));
    expect(parts.slice(-2)).toEqual([
      { type: 'text-end', id: '0' },
      {
        type: 'error',
        error: expect.objectContaining({ code: 'upstream_error', status: 502 }) as unknown,
      },
    ]);
  });

  it('ends with the mapped error when Gemini sends one mid-stream, and reads nothing after', () => {
    const events = readGeminiSseFixture('stream-mid-stream-error.sse');
    const decoder = createGeminiStreamDecoder(call);
    const parts = events.flatMap((event) => decoder.push(event));
    expect(parts.at(-1)).toEqual({
      type: 'error',
      error: expect.objectContaining({ code: 'not_ready', status: 503 }) as unknown,
    });
    expect(decoder.push(events[0]!)).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('finishes a blocked prompt with a content filter', () => {
    const parts = decodeAll([
      {
        data: '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":9}}',
      },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'content-filter', raw: 'SAFETY' },
      usage: expect.objectContaining({
        inputTokens: expect.objectContaining({ total: 9 }),
      }) as unknown,
    });
  });

  it('fails on event data that is not JSON', () => {
    const parts = decodeAll([{ data: 'not json' }]);
    expect(parts).toEqual([
      { type: 'error', error: expect.objectContaining({ code: 'upstream_error' }) as unknown },
    ]);
  });
});
