import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import {
  eventsOfType,
  readOpenAIResponsesSseFixture,
} from './__fixtures__/read-openai-responses-fixture.ts';
import { createOpenAIResponsesStreamDecoder } from './decode-openai-responses-stream.ts';

const longToolName = 'mcp__workspace_tools__search_repository_contents_with_filters_and_globs.v2';

const call: GenerationCall = {
  model: 'gpt',
  messages: [],
  tools: [
    { type: 'function', name: 'shell', inputSchema: { type: 'object' } },
    { type: 'function', name: longToolName, inputSchema: { type: 'object' } },
  ],
  stream: true,
};

function decodeAll(events: UpstreamEvent[], withEnd = true): StreamPart[] {
  const decoder = createOpenAIResponsesStreamDecoder(call);
  const parts = events.flatMap((event) => decoder.push(event));
  return withEnd ? [...parts, ...decoder.end()] : parts;
}

function ofType<T extends StreamPart['type']>(parts: StreamPart[], type: T) {
  return parts.filter((part): part is Extract<StreamPart, { type: T }> => part.type === type);
}

describe('createOpenAIResponsesStreamDecoder', () => {
  it('streams reasoning summaries as one block whose text is the summaries joined by a blank line', () => {
    const events = readOpenAIResponsesSseFixture('stream-reasoning-text.sse');
    const parts = decodeAll(events);
    const [done] = eventsOfType(events, 'response.output_item.done');
    const item = done?.item as {
      id: string;
      encrypted_content: string;
      summary: { text: string }[];
    };
    const summaries = item.summary.map((entry) => entry.text);

    expect(parts[0]).toEqual({
      type: 'response-start',
      id: 'resp_0b7f5c2e9a1d4e6f8a3b2c1d0e9f8a7b6c5d4e3f',
      model: 'gpt-5.1-codex-2025-11-13',
    });
    expect(ofType(parts, 'reasoning-start')).toEqual([
      { type: 'reasoning-start', id: item.id, provider: 'openai', itemId: item.id },
    ]);
    const text = ofType(parts, 'reasoning-delta')
      .map((part) => part.delta)
      .join('');
    expect(text).toBe(summaries.join('\n\n'));
    expect(ofType(parts, 'reasoning-end')).toEqual([
      {
        type: 'reasoning-end',
        id: item.id,
        encryptedContent: item.encrypted_content,
        summary: summaries,
      },
    ]);
  });

  it('emits the message text per content part and the exact usage of response.completed', () => {
    const events = readOpenAIResponsesSseFixture('stream-reasoning-text.sse');
    const parts = decodeAll(events);
    const textParts = parts.filter((part) => part.type.startsWith('text-'));
    const [messageItem] = eventsOfType(events, 'response.output_item.added').slice(1);
    const textId = `${(messageItem?.item as { id: string }).id}:0`;
    expect(textParts).toEqual([
      { type: 'text-start', id: textId },
      { type: 'text-delta', id: textId, delta: 'Hi there!' },
      { type: 'text-delta', id: textId, delta: ' 👋' },
      { type: 'text-delta', id: textId, delta: ' How can I help?' },
      { type: 'text-end', id: textId },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'completed' },
      usage: {
        inputTokens: {
          total: 2941,
          noCache: 2941 - 2816,
          cacheRead: 2816,
          cacheWrite5m: 0,
          cacheWrite1h: 0,
        },
        outputTokens: { total: 187, reasoning: 128 },
      },
    });
  });

  it('keeps parallel function calls apart, by call_id, with their arguments exact', () => {
    const events = readOpenAIResponsesSseFixture('stream-parallel-function-calls.sse');
    const parts = decodeAll(events);
    const done = eventsOfType(events, 'response.output_item.done').map(
      (data) => data.item as { id: string; call_id: string; arguments: string },
    );
    expect(ofType(parts, 'tool-input-start')).toEqual([
      { type: 'tool-input-start', id: done[0]?.call_id, toolName: 'shell', itemId: done[0]?.id },
      // The upstream saw the shortened name; the client gets its own name back.
      {
        type: 'tool-input-start',
        id: done[1]?.call_id,
        toolName: longToolName,
        itemId: done[1]?.id,
      },
    ]);
    for (const item of done) {
      const deltas = ofType(parts, 'tool-input-delta').filter((part) => part.id === item.call_id);
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.map((part) => part.delta).join('')).toBe(item.arguments);
    }
    expect(ofType(parts, 'tool-input-end').map((part) => part.id)).toEqual(
      done.map((item) => item.call_id),
    );
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'completed' },
    });
  });

  it('reports a response cut by max_output_tokens as length with its usage', () => {
    const parts = decodeAll(readOpenAIResponsesSseFixture('stream-incomplete.sse'));
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'max_output_tokens' },
      usage: { inputTokens: { total: 31 }, outputTokens: { total: 16 } },
    });
  });

  it('turns response.failed into one error part with the rate limit and its delay', () => {
    const parts = decodeAll(readOpenAIResponsesSseFixture('stream-failed.sse'));
    expect(parts.slice(1)).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'upstream_rate_limited',
          status: 429,
          retryAfter: 3,
        }),
      },
    ]);
  });

  it('turns an error event into an error part and ignores what follows', () => {
    const decoder = createOpenAIResponsesStreamDecoder(call);
    const error = decoder.push({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        code: 'invalid_prompt',
        message: 'Bad input.',
        param: null,
      }),
    });
    expect(error.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'invalid_request', status: 400 },
    });
    expect(
      decoder.push({ data: JSON.stringify({ type: 'response.completed', response: {} }) }),
    ).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('reports a stream that ended before response.completed as an error part', () => {
    const parts = decodeAll(readOpenAIResponsesSseFixture('stream-truncated.sse'));
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'upstream_error', status: 502 },
    });
    expect(ofType(parts, 'finish')).toEqual([]);
  });

  it('reports an unreadable event as an error part', () => {
    const decoder = createOpenAIResponsesStreamDecoder(call);
    expect(decoder.push({ data: '{"type":"response.created"' })).toMatchObject([
      { type: 'error', error: { code: 'upstream_error' } },
    ]);
  });

  it('takes arguments from the done item when no delta carried them', () => {
    const decoder = createOpenAIResponsesStreamDecoder(call);
    const item = {
      id: 'fc_1',
      type: 'function_call',
      call_id: 'call_1',
      name: 'shell',
      arguments: '',
    };
    const parts = [
      ...decoder.push({
        data: JSON.stringify({ type: 'response.output_item.added', output_index: 0, item }),
      }),
      ...decoder.push({
        data: JSON.stringify({
          type: 'response.output_item.done',
          output_index: 0,
          item: { ...item, arguments: '{"a":1}' },
        }),
      }),
    ];
    expect(ofType(parts, 'tool-input-delta')).toEqual([
      { type: 'tool-input-delta', id: 'call_1', delta: '{"a":1}' },
    ]);
  });
});

describe('createOpenAIResponsesStreamDecoder with a terse upstream', () => {
  it('takes message text from the done item when no content part events came', () => {
    const decoder = createOpenAIResponsesStreamDecoder(call);
    const item = { id: 'msg_1', type: 'message', role: 'assistant', content: [] };
    const parts = [
      ...decoder.push({
        data: JSON.stringify({ type: 'response.output_item.added', output_index: 0, item }),
      }),
      ...decoder.push({
        data: JSON.stringify({
          type: 'response.output_item.done',
          output_index: 0,
          item: {
            ...item,
            content: [{ type: 'output_text', text: 'whole answer', annotations: [] }],
          },
        }),
      }),
    ];
    expect(parts.slice(1)).toEqual([
      { type: 'text-start', id: 'msg_1:0' },
      { type: 'text-delta', id: 'msg_1:0', delta: 'whole answer' },
      { type: 'text-end', id: 'msg_1:0' },
    ]);
  });
});
