import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import { readOpenAIChatSseFixture } from './__fixtures__/read-openai-chat-sse-fixture.ts';
import { createOpenAIChatStreamDecoder } from './decode-openai-chat-stream.ts';

const longToolName =
  'mcp__github__search_repositories_by_topic_and_language_with_pagination_support';

function callWithTools(...names: string[]): GenerationCall {
  return {
    model: 'switchyard/test',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: names.map((name) => ({ type: 'function', name, inputSchema: { type: 'object' } })),
    stream: true,
  };
}

function decodeAll(call: GenerationCall, events: UpstreamEvent[]): StreamPart[] {
  const decoder = createOpenAIChatStreamDecoder(call);
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

/** Reassembles the tool inputs by part id, the way a surface encoder sees them. */
function toolInputs(
  parts: StreamPart[],
): Map<string, { name: string; input: string; ended: boolean }> {
  const calls = new Map<string, { name: string; input: string; ended: boolean }>();
  for (const part of parts) {
    if (part.type === 'tool-input-start')
      calls.set(part.id, { name: part.toolName, input: '', ended: false });
    if (part.type === 'tool-input-delta') {
      const call = calls.get(part.id);
      expect(call, `delta for unstarted ${part.id}`).toBeDefined();
      if (call !== undefined) call.input += part.delta;
    }
    if (part.type === 'tool-input-end') {
      const call = calls.get(part.id);
      expect(call?.ended).toBe(false);
      if (call !== undefined) call.ended = true;
    }
  }
  return calls;
}

describe('createOpenAIChatStreamDecoder', () => {
  it('reassembles parallel tool calls split across many chunks exactly, with names mapped back', () => {
    const parts = decodeAll(
      callWithTools('get_weather', longToolName),
      readOpenAIChatSseFixture('openai-chat-parallel-tool-calls.sse'),
    );
    const calls = toolInputs(parts);
    expect([...calls.entries()]).toEqual([
      [
        'call_Wk3nHq8vR2',
        { name: 'get_weather', input: '{"location": "Paris, FR", "unit": "c"}', ended: true },
      ],
      [
        'call_9aQ2mZt5Lx',
        { name: longToolName, input: '{"topic": "café \\"crème\\"", "page": 2}', ended: true },
      ],
    ]);
    expect(JSON.parse(calls.get('call_9aQ2mZt5Lx')?.input ?? '')).toEqual({
      topic: 'café "crème"',
      page: 2,
    });
  });

  it('maps the usage chunk with OpenAI semantics: prompt includes cached reads', () => {
    const parts = decodeAll(
      callWithTools('get_weather', longToolName),
      readOpenAIChatSseFixture('openai-chat-parallel-tool-calls.sse'),
    );
    expect(parts[0]).toEqual({
      type: 'response-start',
      id: 'chatcmpl-CqT4bN8x2kLm0pZ1vW7yR3sD',
      model: 'gpt-4.1-2025-04-14',
    });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {
        inputTokens: {
          total: 1204,
          noCache: 180,
          cacheRead: 1024,
          cacheWrite5m: 0,
          cacheWrite1h: 0,
        },
        outputTokens: { total: 58, reasoning: 0 },
      },
    });
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
  });

  it('keeps interleaved parallel calls apart and closes text before the calls', () => {
    const parts = decodeAll(
      callWithTools('files.read'),
      readOpenAIChatSseFixture('openai-chat-interleaved-tool-calls.sse'),
    );
    expect([...toolInputs(parts).entries()]).toEqual([
      ['chatcmpl-tool-a1', { name: 'files.read', input: '{"path": "a.txt"}', ended: true }],
      ['chatcmpl-tool-b2', { name: 'files.read', input: '{"path": "b.txt"}', ended: true }],
    ]);
    const kinds = parts.map((part) => part.type);
    expect(kinds.indexOf('text-end')).toBeLessThan(kinds.indexOf('tool-input-start'));
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' && finish.usage.outputTokens).toEqual({
      total: 41,
      reasoning: 12,
    });
  });

  it('reads reasoning once when a server sends both `reasoning` and `reasoning_content`', () => {
    const parts = decodeAll(
      callWithTools('files.read'),
      readOpenAIChatSseFixture('openai-chat-interleaved-tool-calls.sse'),
    );
    const reasoning = parts
      .flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []))
      .join('');
    expect(reasoning).toBe('The user wants two files. Read both at once.');
  });

  it('turns reasoning_content deltas into one reasoning block ahead of the text block', () => {
    const parts = decodeAll(
      callWithTools(),
      readOpenAIChatSseFixture('openai-chat-reasoning-content.sse'),
    );
    expect(parts).toEqual([
      {
        type: 'response-start',
        id: '2f9a6c1e-3b7d-4c8e-9f10-5a2b3c4d5e6f',
        model: 'deepseek-reasoner',
      },
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Okay' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: ', 2 + 2' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: ' is 4.' },
      { type: 'reasoning-end', id: 'reasoning-0' },
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: '2 + 2' },
      { type: 'text-delta', id: 'text-1', delta: ' = 4.' },
      { type: 'text-end', id: 'text-1' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 27, noCache: 27, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
          outputTokens: { total: 19, reasoning: 11 },
        },
      },
    ]);
  });

  it('reports a stream that closes without a finish reason as an error part', () => {
    const parts = decodeAll(
      callWithTools('get_weather'),
      readOpenAIChatSseFixture('openai-chat-truncated.sse'),
    );
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && last.error.code).toBe('upstream_error');
  });

  it('reports [DONE] without a finish reason as an error part', () => {
    const events = readOpenAIChatSseFixture('openai-chat-truncated.sse');
    const parts = decodeAll(callWithTools('get_weather'), [...events, { data: '[DONE]' }]);
    expect(parts.at(-1)?.type).toBe('error');
    expect(parts.filter((part) => part.type === 'error')).toHaveLength(1);
  });

  it('turns a mid-stream error event into an error part and ignores what follows', () => {
    const decoder = createOpenAIChatStreamDecoder(callWithTools());
    const parts = readOpenAIChatSseFixture('openai-chat-mid-stream-error.sse').flatMap((event) =>
      decoder.push(event),
    );
    const error = parts.at(-1);
    expect(error?.type === 'error' && error.error.message).toContain('The server had an error');
    expect(decoder.push({ data: '[DONE]' })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('reports a chunk that is not JSON as an error part', () => {
    const decoder = createOpenAIChatStreamDecoder(callWithTools());
    expect(decoder.push({ data: '{"id": "x", "choices": [' })).toMatchObject([
      { type: 'error', error: { code: 'upstream_error' } },
    ]);
  });

  it('emits the finish part when the stream closes after a finish reason without [DONE]', () => {
    const events = readOpenAIChatSseFixture('openai-chat-reasoning-content.sse').filter(
      (event) => event.data !== '[DONE]',
    );
    const parts = decodeAll(callWithTools(), events);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: { total: 27 } } });
  });

  it('buffers argument fragments that arrive before the call id and name', () => {
    const chunk = (toolCall: Record<string, unknown>, finish: string | null = null) => ({
      data: JSON.stringify({
        id: 'c',
        choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: finish }],
      }),
    });
    const parts = decodeAll(callWithTools('lookup'), [
      chunk({ index: 0, function: { arguments: '{"a"' } }),
      chunk({ index: 0, id: 'call_late', function: { name: 'lookup', arguments: ':1}' } }),
      {
        data: JSON.stringify({
          id: 'c',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        }),
      },
      { data: '[DONE]' },
    ]);
    expect([...toolInputs(parts).entries()]).toEqual([
      ['call_late', { name: 'lookup', input: '{"a":1}', ended: true }],
    ]);
    // A server that says `stop` after tool calls still ends a tool-calling turn.
    expect(parts.at(-1)).toMatchObject({ finishReason: { unified: 'tool-calls', raw: 'stop' } });
  });

  it('reads deltas of one shape (without a parse) as written, and still stops at a broken one', () => {
    const chunk = (content: string) =>
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index: 0, delta: { content }, finish_reason: null }],
      });
    const texts = ['Hel', 'lo "w"\n', '\\ ok', '😀 \u0001', 'end'];
    const broken = chunk('x').replace('"x"', '"a"b"');
    const parts = decodeAll(callWithTools(), [
      ...texts.map((text) => ({ data: chunk(text) })),
      { data: broken },
    ]);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)).toEqual(
      texts,
    );
    expect(parts.at(-1)).toMatchObject({ type: 'error' });
  });
});
