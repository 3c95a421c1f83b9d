import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { readOpenAIChatJsonFixture } from './__fixtures__/read-openai-chat-sse-fixture.ts';
import { decodeOpenAIChatResult } from './decode-openai-chat-result.ts';
import { readChatResultUsage } from './read-openai-chat-result-usage.ts';

const longToolName =
  'mcp__github__search_repositories_by_topic_and_language_with_pagination_support';
const call: GenerationCall = {
  model: 'switchyard/o4-mini',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
  tools: [
    { type: 'function', name: longToolName, inputSchema: { type: 'object' } },
    { type: 'function', name: 'get_weather', inputSchema: { type: 'object' } },
  ],
  stream: false,
};

describe('decodeOpenAIChatResult', () => {
  it('decodes tool calls with exact arguments, names mapped back, and OpenAI usage', () => {
    const result = decodeOpenAIChatResult(
      readOpenAIChatJsonFixture('openai-chat-tool-calls.json'),
      call,
    );
    expect(result).toEqual({
      id: 'chatcmpl-CqT9aX1bY2cZ3dW4',
      model: 'o4-mini-2025-04-16',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_a1B2c3D4',
          toolName: longToolName,
          input: '{"topic":"typescript","language":"en"}',
        },
        {
          type: 'tool-call',
          toolCallId: 'call_e5F6g7H8',
          toolName: 'get_weather',
          input: '{"location":"Oslo"}',
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {
        inputTokens: {
          total: 2310,
          noCache: 262,
          cacheRead: 2048,
          cacheWrite5m: 0,
          cacheWrite1h: 0,
        },
        outputTokens: { total: 345, reasoning: 256 },
      },
    });
  });

  it('puts reasoning_content first as unsigned reasoning', () => {
    const result = decodeOpenAIChatResult(
      readOpenAIChatJsonFixture('openai-chat-reasoning-content.json'),
      call,
    );
    expect(result.content).toEqual([
      { type: 'reasoning', text: "The user asks for France's capital. It is Paris." },
      { type: 'text', text: 'The capital of France is Paris.' },
    ]);
    expect(result.usage.inputTokens).toMatchObject({ total: 640, noCache: 128, cacheRead: 512 });
  });

  it('reads DeepSeek cache hits when there are no prompt_tokens_details', () => {
    const body = {
      choices: [{ message: { content: 'x' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64 },
    };
    expect(decodeOpenAIChatResult(body, call).usage.inputTokens).toMatchObject({
      total: 100,
      noCache: 36,
      cacheRead: 64,
    });
  });

  it('throws an upstream error for a body without a choice', () => {
    expect(() => decodeOpenAIChatResult({ error: { message: 'overloaded' } }, call)).toThrow(
      ApiError,
    );
    expect(() => decodeOpenAIChatResult({ choices: [] }, call)).toThrow(/upstream/i);
  });

  it('reads the usage of a relayed body for the fast path', () => {
    expect(readChatResultUsage(readOpenAIChatJsonFixture('openai-chat-tool-calls.json'))).toEqual({
      inputTokens: { total: 2310, noCache: 262, cacheRead: 2048, cacheWrite5m: 0, cacheWrite1h: 0 },
      outputTokens: { total: 345, reasoning: 256 },
    });
    expect(readChatResultUsage({ choices: [] })).toBeUndefined();
  });
});
