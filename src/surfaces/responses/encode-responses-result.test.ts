import { describe, expect, it } from 'vitest';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import { encodeResponsesResult } from './encode-responses-result.ts';
import { decodeAnthropicReasoningToken } from './responses-reasoning-token.ts';

const context = { responseId: 'resp_abc123', model: 'public-model', createdAt: 1767004800 };
const usage = usageFromParts({
  noCache: 100,
  cacheRead: 2000,
  cacheWrite5m: 300,
  cacheWrite1h: 50,
  output: 40,
  reasoning: 12,
});

function result(
  content: GenerationResult['content'],
  unified: GenerationResult['finishReason']['unified'] = 'stop',
): GenerationResult {
  return { content, finishReason: { unified, raw: undefined }, usage };
}

describe('encodeResponsesResult', () => {
  it('renders a response object with OpenAI usage semantics', () => {
    const response = encodeResponsesResult(result([{ type: 'text', text: 'Hi' }]), context);
    expect(response).toEqual({
      id: 'resp_abc123',
      object: 'response',
      created_at: 1767004800,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'public-model',
      output: [
        {
          id: 'msg_abc123_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hi' }],
        },
      ],
      usage: {
        input_tokens: 2450,
        input_tokens_details: { cached_tokens: 2000 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 2490,
      },
    });
  });

  it('groups consecutive text in one message and keeps function call ids apart from call ids', () => {
    const response = encodeResponsesResult(
      result(
        [
          {
            type: 'reasoning',
            text: 'S1\n\nS2',
            provider: 'openai',
            itemId: 'rs_up',
            encryptedContent: 'enc',
            summary: ['S1', 'S2'],
          },
          { type: 'text', text: 'One. ' },
          { type: 'text', text: 'Two.' },
          {
            type: 'tool-call',
            toolCallId: 'call_1',
            itemId: 'fc_up',
            toolName: 'shell',
            input: '{"a": 1}',
          },
          { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'mcp__docs--search', input: '{}' },
        ],
        'tool-calls',
      ),
      context,
    );
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      {
        id: 'rs_up',
        type: 'reasoning',
        summary: [
          { type: 'summary_text', text: 'S1' },
          { type: 'summary_text', text: 'S2' },
        ],
        encrypted_content: 'enc',
      },
      expect.objectContaining({
        id: 'msg_abc123_1',
        content: [
          expect.objectContaining({ text: 'One. ' }),
          expect.objectContaining({ text: 'Two.' }),
        ],
      }),
      {
        id: 'fc_up',
        type: 'function_call',
        status: 'completed',
        arguments: '{"a": 1}',
        call_id: 'call_1',
        name: 'shell',
      },
      {
        id: 'fc_abc123_3',
        type: 'function_call',
        status: 'completed',
        arguments: '{}',
        call_id: 'toolu_2',
        name: 'search',
        namespace: 'mcp__docs',
      },
    ]);
  });

  it('carries Anthropic thinking in a gateway token and shows its text as the summary', () => {
    const response = encodeResponsesResult(
      result([
        { type: 'reasoning', text: 'Think.', signature: 'sig==', provider: 'anthropic' },
        { type: 'reasoning', text: '', redactedData: 'opaque', provider: 'anthropic' },
        { type: 'reasoning', text: 'unsigned thought' },
      ]),
      context,
    );
    const [thinking, redacted, unsigned] = response.output as Array<{
      summary: unknown;
      encrypted_content?: string;
      id: string;
    }>;
    expect(thinking?.summary).toEqual([{ type: 'summary_text', text: 'Think.' }]);
    expect(decodeAnthropicReasoningToken(thinking?.encrypted_content ?? '')).toEqual({
      thinking: 'Think.',
      signature: 'sig==',
    });
    expect(redacted?.summary).toEqual([]);
    expect(decodeAnthropicReasoningToken(redacted?.encrypted_content ?? '')).toEqual({
      redactedData: 'opaque',
    });
    expect(unsigned).toEqual({
      id: 'rs_abc123_2',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'unsigned thought' }],
    });
  });

  it.each([
    ['length', 'incomplete', { reason: 'max_output_tokens' }],
    ['content-filter', 'incomplete', { reason: 'content_filter' }],
    ['tool-calls', 'completed', null],
    ['pause', 'completed', null],
  ] as const)('renders %s as status %s', (unified, status, details) => {
    const response = encodeResponsesResult(result([], unified), context);
    expect(response.status).toBe(status);
    expect(response.incomplete_details).toEqual(details);
  });

  it('renders an error finish as a failed response with an error object', () => {
    const response = encodeResponsesResult(result([], 'error'), context);
    expect(response.status).toBe('failed');
    expect(response.error).toMatchObject({ code: 'server_error' });
  });
});
