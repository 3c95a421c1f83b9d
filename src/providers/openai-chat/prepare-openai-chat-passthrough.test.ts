import { describe, expect, it } from 'vitest';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { readOpenAIChatSseFixture } from './__fixtures__/read-openai-chat-sse-fixture.ts';
import { createChatUsageTap } from './openai-chat-usage-tap.ts';
import { prepareChatPassthrough } from './prepare-openai-chat-passthrough.ts';

const options: ProviderRequestOptions = {
  upstreamModel: 'gpt-4.1-2025-04-14',
  promptCache: 'auto',
  defaultMaxOutputTokens: 4096,
};

describe('prepareChatPassthrough', () => {
  it('replaces the model, keeps unknown fields and adds include_usage to a stream', () => {
    const body = {
      model: 'switchyard/gpt',
      messages: [{ role: 'user', content: 'hi', x_custom: 1 }],
      stream: true,
      stream_options: { include_obfuscation: false },
      logprobs: true,
      verbosity: 'low',
    };
    const prepared = prepareChatPassthrough(body, options);
    expect(prepared).toEqual({
      body: {
        ...body,
        model: 'gpt-4.1-2025-04-14',
        stream_options: { include_obfuscation: false, include_usage: true },
      },
      clientAskedForUsage: false,
    });
    expect(body.model).toBe('switchyard/gpt');
  });

  it('remembers that the client asked for usage itself', () => {
    const prepared = prepareChatPassthrough(
      { model: 'm', messages: [], stream: true, stream_options: { include_usage: true } },
      options,
    );
    expect(prepared.clientAskedForUsage).toBe(true);
  });

  it('leaves a non-streamed body without stream_options', () => {
    const prepared = prepareChatPassthrough({ model: 'm', messages: [] }, options);
    expect(prepared.body).toEqual({ model: 'gpt-4.1-2025-04-14', messages: [] });
  });
});

describe('createChatUsageTap', () => {
  it('finds the usage chunk and the finish reason of a relayed stream', () => {
    const tap = createChatUsageTap();
    const events = readOpenAIChatSseFixture('openai-chat-parallel-tool-calls.sse');
    const usageChunks = events.filter((event) => tap.observe(event).usageChunk);
    expect(usageChunks).toHaveLength(1);
    expect(usageChunks[0]?.data).toContain('"choices":[]');
    expect(tap.finishReason()).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
    expect(tap.usage()).toEqual({
      inputTokens: { total: 1204, noCache: 180, cacheRead: 1024, cacheWrite5m: 0, cacheWrite1h: 0 },
      outputTokens: { total: 58, reasoning: 0 },
    });
  });

  it('reads usage carried on the finish chunk itself, which is then not a usage-only chunk', () => {
    const tap = createChatUsageTap();
    const events = readOpenAIChatSseFixture('openai-chat-interleaved-tool-calls.sse');
    expect(events.some((event) => tap.observe(event).usageChunk)).toBe(false);
    expect(tap.usage()?.outputTokens).toEqual({ total: 41, reasoning: 12 });
    expect(tap.finishReason()?.raw).toBe('tool_calls');
  });

  it('is not fooled by the key names inside generated text', () => {
    const tap = createChatUsageTap();
    const text = 'say "usage": {"prompt_tokens": 9} and "finish_reason": "stop"';
    tap.observe({
      data: JSON.stringify({
        choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
      }),
    });
    expect(tap.usage()).toBeUndefined();
    expect(tap.finishReason()).toBeUndefined();
  });
});
