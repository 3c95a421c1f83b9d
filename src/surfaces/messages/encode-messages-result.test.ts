import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import { messageResponseSchema } from '../../wire/messages/messages-response-schema.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { encodeMessagesResult } from './encode-messages-result.ts';

const context = { responseId: 'msg_gateway_2', model: 'public-model', createdAt: 1_800_000_000 };

function result(overrides: Partial<GenerationResult> = {}): GenerationResult {
  return {
    content: [{ type: 'text', text: 'hi' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usageFromParts({ noCache: 10, output: 5 }),
    ...overrides,
  };
}

describe('encodeMessagesResult', () => {
  it('renders a message response that matches the documented schema', () => {
    const body = encodeMessagesResult(result({ id: 'chatcmpl-upstream', model: 'gpt-x' }), context);
    expect(Compile(messageResponseSchema).Check(body)).toBe(true);
    expect(body).toMatchObject({
      id: 'msg_gateway_2',
      type: 'message',
      role: 'assistant',
      model: 'public-model',
    });
  });

  it('renders usage with input excluding cache reads and writes, writes split per TTL', () => {
    const usage = usageFromParts({
      noCache: 12,
      cacheRead: 900,
      cacheWrite5m: 70,
      cacheWrite1h: 30,
      output: 44,
      reasoning: 20,
    });
    expect(encodeMessagesResult(result({ usage }), context).usage).toEqual({
      input_tokens: 12,
      output_tokens: 44,
      cache_read_input_tokens: 900,
      cache_creation_input_tokens: 100,
      cache_creation: { ephemeral_5m_input_tokens: 70, ephemeral_1h_input_tokens: 30 },
    });
  });

  it.each([
    [{ unified: 'stop', raw: 'stop' }, 'end_turn'],
    [{ unified: 'length', raw: 'length' }, 'max_tokens'],
    [{ unified: 'tool-calls', raw: 'tool_calls' }, 'tool_use'],
    [{ unified: 'content-filter', raw: 'content_filter' }, 'refusal'],
    [{ unified: 'pause', raw: undefined }, 'pause_turn'],
    [{ unified: 'other', raw: 'weird' }, 'end_turn'],
    [{ unified: 'stop', raw: 'stop_sequence' }, 'stop_sequence'],
    [{ unified: 'length', raw: 'model_context_window_exceeded' }, 'model_context_window_exceeded'],
    [{ unified: 'refusal', raw: 'refusal' }, 'refusal'],
  ] as const)('renders finish reason %j as %s', (finishReason, expected) => {
    expect(encodeMessagesResult(result({ finishReason }), context).stop_reason).toBe(expected);
  });

  it('renders tool arguments as an object, and text that is not one unchanged', () => {
    const body = encodeMessagesResult(
      result({
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'a', input: '{"q":"x","n":[1,2]}' },
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'b', input: '' },
          { type: 'tool-call', toolCallId: 'call_3', toolName: 'c', input: '{"broken":' },
        ],
      }),
      context,
    );
    expect(body.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'a', input: { q: 'x', n: [1, 2] } },
      { type: 'tool_use', id: 'call_2', name: 'b', input: {} },
      { type: 'tool_use', id: 'call_3', name: 'c', input: '{"broken":' },
    ]);
  });

  it('renders each kind of reasoning in its own form', () => {
    const body = encodeMessagesResult(
      result({
        content: [
          { type: 'reasoning', text: 'signed', signature: 'Eq+/=', provider: 'anthropic' },
          { type: 'reasoning', text: '', redactedData: 'Emw=', provider: 'anthropic' },
          { type: 'reasoning', text: 'unsigned' },
          {
            type: 'reasoning',
            text: '',
            provider: 'openai',
            itemId: 'rs_9',
            encryptedContent: 'gAAA',
            summary: ['a', 'b'],
          },
        ],
      }),
      context,
    );
    expect(body.content.slice(0, 3)).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 'Eq+/=' },
      { type: 'redacted_thinking', data: 'Emw=' },
      { type: 'thinking', thinking: 'unsigned', signature: '' },
    ]);
    expect(body.content[3]).toMatchObject({
      type: 'thinking',
      thinking: 'a\n\nb',
      signature: expect.stringMatching(/^sy1\.openai\.[A-Za-z0-9_-]+$/),
    });
  });
});

describe('encodeMessagesResult with thinking.display "omitted" (decisions/0011)', () => {
  const omitted = { thinking: { type: 'adaptive', display: 'omitted' } };

  it('renders thinking blocks without text and keeps every signature', () => {
    const openaiReasoning = {
      type: 'reasoning' as const,
      text: '',
      provider: 'openai' as const,
      itemId: 'rs_9',
      encryptedContent: 'gAAA',
      summary: ['a'],
    };
    const content: GenerationResult['content'] = [
      { type: 'reasoning', text: 'unsigned' },
      openaiReasoning,
      { type: 'text', text: 'answer' },
    ];
    const shown = encodeMessagesResult(result({ content }), context);
    const body = encodeMessagesResult(result({ content }), context, omitted);
    expect(body.content[0]).toEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(body.content[1]).toEqual({ ...shown.content[1], thinking: '' });
    expect(body.content[2]).toEqual({ type: 'text', text: 'answer' });
    // The signature alone restores the OpenAI item on the next turn.
    const replayed = decodeMessagesRequest({
      model: 'm',
      max_tokens: 16,
      messages: [{ role: 'assistant', content: [body.content[1]] }],
    });
    expect(replayed.issues).toEqual([]);
    expect(replayed.value.messages[0]?.content[0]).toMatchObject({
      provider: 'openai',
      itemId: 'rs_9',
      encryptedContent: 'gAAA',
      summary: ['a'],
    });
  });
});

describe('messages round trip', () => {
  const claudeCodeRequest = JSON.parse(
    readFileSync(
      new URL('../../wire/messages/__fixtures__/claude-code-request.json', import.meta.url),
      'utf8',
    ),
  ) as { messages: Array<{ role: string; content: unknown }> };

  it('decodes the blocks it encoded into the same canonical parts', () => {
    const original = decodeMessagesRequest(claudeCodeRequest).value.messages[2];
    if (original?.role !== 'assistant') throw new Error('fixture changed');
    const extra = [
      {
        type: 'reasoning' as const,
        text: '',
        redactedData: 'EmwKAhgB',
        provider: 'anthropic' as const,
      },
      {
        type: 'reasoning' as const,
        text: 'x\n\ny',
        provider: 'openai' as const,
        itemId: 'rs_2',
        encryptedContent: 'enc',
        summary: ['x', 'y'],
      },
      { type: 'reasoning' as const, text: 'plain' },
    ];
    const content = [...original.content, ...extra];
    const encoded = encodeMessagesResult(result({ content }), context);
    const decoded = decodeMessagesRequest({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: encoded.content },
      ],
    });
    expect(decoded.issues).toEqual([]);
    expect(decoded.value.messages[1]).toEqual({ role: 'assistant', content });
  });

  it('re-encodes the assistant blocks of a client request byte for byte', () => {
    const assistant = claudeCodeRequest.messages[1];
    const decoded = decodeMessagesRequest(claudeCodeRequest).value.messages[2];
    if (decoded?.role !== 'assistant') throw new Error('fixture changed');
    const encoded = encodeMessagesResult(result({ content: decoded.content }), context);
    expect(JSON.stringify(encoded.content)).toBe(JSON.stringify(assistant?.content));
  });
});
