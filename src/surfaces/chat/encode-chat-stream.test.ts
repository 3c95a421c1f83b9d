import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import type { SurfaceEncodeContext, SurfaceEvent } from '../surface-codec.ts';
import { readChatStreamEncoderOptions } from './chat-stream-encoder-options.ts';
import { createChatStreamEncoder } from './encode-chat-stream.ts';

const context: SurfaceEncodeContext = {
  responseId: 'chatcmpl-sy-2',
  model: 'switchyard/claude-sonnet',
  createdAt: 1767225600,
};

interface ToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}
interface Chunk {
  choices: Array<{
    index: number;
    delta: {
      role?: string;
      content?: string;
      reasoning_content?: string;
      tool_calls?: ToolCallDelta[];
    };
    finish_reason: string | null;
  }>;
  usage?: unknown;
  error?: unknown;
}

/**
 * The checks the `openai` SDK's ChatCompletionStream makes while it accumulates chunks and when
 * it finalises the completion (missing role, finish_reason, tool call id/type/name/arguments
 * throw), plus the first-delta rule of @ai-sdk/openai-compatible (a new index must bring id and
 * name). Reasoning is concatenated the way the AI SDK reads `reasoning_content`.
 */
function accumulateLikeChatClients(events: SurfaceEvent[]) {
  const message: {
    role?: string;
    content: string | null;
    reasoning: string;
    tool_calls: Array<{
      id?: string;
      type?: string;
      function?: { name: string; arguments: string };
    }>;
  } = { content: null, reasoning: '', tool_calls: [] };
  let finishReason: string | null = null;
  let usage: unknown;
  expect(events.at(-1)?.data).toBe('[DONE]');
  for (const event of events.slice(0, -1)) {
    expect(event.event).toBeUndefined();
    const chunk = event.data as Chunk;
    if (chunk.error) throw new Error('error chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const { delta, finish_reason } of chunk.choices) {
      if (finish_reason) finishReason = finish_reason;
      if (delta.role) message.role = delta.role;
      if (delta.content) message.content = (message.content ?? '') + delta.content;
      if (delta.reasoning_content) message.reasoning += delta.reasoning_content;
      for (const toolCall of delta.tool_calls ?? []) {
        const known = message.tool_calls[toolCall.index];
        if (known === undefined) {
          if (toolCall.id == null || toolCall.function?.name == null)
            throw new Error('first delta lacks id or name');
          message.tool_calls[toolCall.index] = {
            id: toolCall.id,
            type: toolCall.type,
            function: {
              name: toolCall.function.name,
              arguments: toolCall.function.arguments ?? '',
            },
          };
        } else {
          expect(Object.keys(toolCall).sort()).toEqual(['function', 'index']);
          expect(Object.keys(toolCall.function ?? {})).toEqual(['arguments']);
          if (known.function) known.function.arguments += toolCall.function?.arguments ?? '';
        }
      }
    }
  }
  if (message.role == null) throw new Error('missing choices[0].message.role');
  if (finishReason == null) throw new Error('missing finish_reason for choice 0');
  message.tool_calls.forEach((call, index) => {
    if (call.id == null) throw new Error(`missing tool_calls[${index}].id`);
    if (call.type == null) throw new Error(`missing tool_calls[${index}].type`);
    if (call.function?.name == null) throw new Error(`missing tool_calls[${index}].function.name`);
  });
  return { message, finishReason, usage };
}

const usage = usageFromParts({
  noCache: 20,
  cacheRead: 100,
  cacheWrite5m: 7,
  output: 40,
  reasoning: 9,
});

const toolCallStream: StreamPart[] = [
  { type: 'response-start', id: 'msg_01', model: 'claude-sonnet-4-5' },
  { type: 'reasoning-start', id: '0', provider: 'anthropic' },
  { type: 'reasoning-delta', id: '0', delta: 'Two files; ' },
  { type: 'reasoning-delta', id: '0', delta: 'read both.' },
  { type: 'reasoning-end', id: '0', signature: 'EqQBCkY' },
  { type: 'text-start', id: '1' },
  { type: 'text-delta', id: '1', delta: 'Reading' },
  { type: 'text-delta', id: '1', delta: ' files.' },
  { type: 'text-end', id: '1' },
  { type: 'tool-input-start', id: 'toolu_a', toolName: 'files.read' },
  { type: 'tool-input-start', id: 'toolu_b', toolName: 'files.read' },
  { type: 'tool-input-delta', id: 'toolu_a', delta: '{"path":' },
  { type: 'tool-input-delta', id: 'toolu_b', delta: '{"path":"b.txt"}' },
  { type: 'tool-input-delta', id: 'toolu_a', delta: '"a.txt"}' },
  { type: 'tool-input-end', id: 'toolu_b' },
  { type: 'tool-input-end', id: 'toolu_a' },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage },
];

function encodeAll(parts: StreamPart[], includeUsage: boolean): SurfaceEvent[] {
  const encoder = createChatStreamEncoder(context, { includeUsage });
  return [...parts.flatMap((part) => encoder.encode(part)), ...encoder.end()];
}

describe('createChatStreamEncoder', () => {
  it('writes its text and reasoning chunks from a template exactly as JSON.stringify would', () => {
    const tricky = ['Say "hi"', 'a\\b\n', '✓ 🚀', '\u2028', '</script>'];
    const events = encodeAll(
      [
        { type: 'response-start' },
        { type: 'reasoning-start', id: 'r', provider: 'anthropic' },
        ...tricky.map((delta): StreamPart => ({ type: 'reasoning-delta', id: 'r', delta })),
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't' },
        ...tricky.map((delta): StreamPart => ({ type: 'text-delta', id: 't', delta })),
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ],
      true,
    );
    const written = events.filter((event) => event.json !== undefined);
    expect(written).toHaveLength(2 * tricky.length);
    for (const event of written) expect(event.json).toBe(JSON.stringify(event.data));
  });

  it('renders a stream that chat clients accumulate into the right message', () => {
    const accumulated = accumulateLikeChatClients(encodeAll(toolCallStream, true));
    expect(accumulated).toEqual({
      message: {
        role: 'assistant',
        content: 'Reading files.',
        reasoning: 'Two files; read both.',
        tool_calls: [
          {
            id: 'toolu_a',
            type: 'function',
            function: { name: 'files.read', arguments: '{"path":"a.txt"}' },
          },
          {
            id: 'toolu_b',
            type: 'function',
            function: { name: 'files.read', arguments: '{"path":"b.txt"}' },
          },
        ],
      },
      finishReason: 'tool_calls',
      usage: {
        prompt_tokens: 127,
        completion_tokens: 40,
        total_tokens: 167,
        prompt_tokens_details: { cached_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 9 },
      },
    });
  });

  it('sends the usage chunk with `choices: []` after the finish chunk, then [DONE]', () => {
    const events = encodeAll(toolCallStream, true);
    const tail = events.slice(-3).map((event) => event.data);
    expect(tail[0]).toMatchObject({
      choices: [{ delta: {}, finish_reason: 'tool_calls' }],
      usage: null,
    });
    expect(tail[1]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 127 },
    });
    expect(tail[2]).toBe('[DONE]');
  });

  it('sends no usage at all when the client did not ask for it', () => {
    const events = encodeAll(toolCallStream, false);
    expect(
      events.some((event) => typeof event.data === 'object' && 'usage' in (event.data as object)),
    ).toBe(false);
    expect(accumulateLikeChatClients(events).usage).toBeUndefined();
  });

  it('starts with a role chunk carrying the context id, model and created time', () => {
    const [first] = encodeAll(toolCallStream, false);
    expect(first?.data).toEqual({
      id: 'chatcmpl-sy-2',
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'switchyard/claude-sonnet',
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: null,
        },
      ],
    });
  });

  it('sends the role chunk first even when the stream has no response-start', () => {
    const events = encodeAll(
      [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'hi' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ],
      false,
    );
    expect(events.map((event) => (event.data as Chunk).choices?.[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'hi' },
      {},
      undefined,
    ]);
  });

  it('renders an error part as a shape A body followed by nothing', () => {
    const encoder = createChatStreamEncoder(context, { includeUsage: true });
    const events = [
      ...encoder.encode({ type: 'text-delta', id: 't', delta: 'Hel' }),
      ...encoder.encode({
        type: 'error',
        error: {
          code: 'upstream_error',
          status: 502,
          type: 'api_error',
          message: 'Upstream failed.',
        },
      }),
      ...encoder.encode({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }),
      ...encoder.end(),
    ];
    expect(events.at(-1)?.data).toEqual({
      error: { type: 'api_error', message: 'Upstream failed.', code: 'upstream_error' },
    });
    expect(events).toHaveLength(3);
  });

  it('ends a stream that never finished with an error instead of [DONE]', () => {
    const encoder = createChatStreamEncoder(context);
    encoder.encode({ type: 'text-delta', id: 't', delta: 'Hel' });
    const closing = encoder.end();
    expect(closing).toHaveLength(1);
    expect(closing[0]?.data).toMatchObject({ error: { code: 'upstream_error' } });
  });

  it('reads include_usage from the request body', () => {
    expect(readChatStreamEncoderOptions({ stream_options: { include_usage: true } })).toEqual({
      includeUsage: true,
    });
    expect(readChatStreamEncoderOptions({ stream: true })).toEqual({ includeUsage: false });
  });
});
