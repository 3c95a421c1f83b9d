import { describe, expect, it } from 'vitest';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import type { SurfaceEncodeContext } from '../surface-codec.ts';
import { encodeChatResult } from './encode-chat-result.ts';

const context: SurfaceEncodeContext = {
  responseId: 'chatcmpl-sy-1',
  model: 'switchyard/claude-sonnet',
  createdAt: 1767225600,
};

const result = (overrides: Partial<GenerationResult>): GenerationResult => ({
  content: [{ type: 'text', text: 'hi' }],
  finishReason: { unified: 'stop', raw: 'end_turn' },
  usage: usageFromParts({ noCache: 10, output: 2 }),
  ...overrides,
});

describe('encodeChatResult', () => {
  it('renders usage with OpenAI semantics: prompt includes cache reads and writes', () => {
    const body = encodeChatResult(
      result({
        usage: usageFromParts({
          noCache: 12,
          cacheRead: 3000,
          cacheWrite5m: 400,
          cacheWrite1h: 50,
          output: 80,
          reasoning: 30,
        }),
      }),
      context,
    );
    expect(body.usage).toEqual({
      prompt_tokens: 3462,
      completion_tokens: 80,
      total_tokens: 3542,
      prompt_tokens_details: { cached_tokens: 3000 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  });

  it('renders text, reasoning and tool calls, with the ids and model of the context', () => {
    const body = encodeChatResult(
      result({
        id: 'msg_upstream',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'reasoning', text: 'Think', signature: 'sig', provider: 'anthropic' },
          { type: 'reasoning', text: '', redactedData: 'xyz', provider: 'anthropic' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          {
            type: 'tool-call',
            toolCallId: 'toolu_1',
            toolName: 'files.read',
            input: '{"path":"a"}',
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      }),
      context,
    );
    expect(body).toMatchObject({
      id: 'chatcmpl-sy-1',
      object: 'chat.completion',
      created: 1767225600,
      model: 'switchyard/claude-sonnet',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            reasoning_content: 'Think',
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'files.read', arguments: '{"path":"a"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('renders content null when the model produced only tool calls', () => {
    const body = encodeChatResult(
      result({ content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: '{}' }] }),
      context,
    );
    expect(body.choices[0]?.message.content).toBeNull();
    expect(body.choices[0]?.message).not.toHaveProperty('reasoning_content');
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool-calls', 'tool_calls'],
    ['content-filter', 'content_filter'],
    ['refusal', 'content_filter'],
    ['pause', 'stop'],
    ['other', 'stop'],
  ] as const)('renders the unified finish reason %s as %s', (unified, word) => {
    const body = encodeChatResult(result({ finishReason: { unified, raw: 'x' } }), context);
    expect(body.choices[0]?.finish_reason).toBe(word);
  });
});
