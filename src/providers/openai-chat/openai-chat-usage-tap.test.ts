import { describe, expect, it } from 'vitest';
import { readOpenAIChatSseFixture } from './__fixtures__/read-openai-chat-sse-fixture.ts';
import { createChatUsageTap } from './openai-chat-usage-tap.ts';
import type { UpstreamEvent } from '../provider-codec.ts';

function parsedData(event: UpstreamEvent): unknown {
  return event.data === '[DONE]' ? undefined : JSON.parse(event.data);
}

function chunk(fields: Record<string, unknown>): UpstreamEvent {
  return { data: JSON.stringify({ id: 'c', object: 'chat.completion.chunk', ...fields }) };
}

describe('createChatUsageTap', () => {
  it.each([
    'openai-chat-parallel-tool-calls.sse',
    'openai-chat-reasoning-content.sse',
    'openai-chat-interleaved-tool-calls.sse',
    'openai-chat-truncated.sse',
    'openai-chat-mid-stream-error.sse',
  ])('reads the same from parsed data as from the text of %s', (name) => {
    const events = readOpenAIChatSseFixture(name);
    const fromText = createChatUsageTap();
    const fromParsed = createChatUsageTap();
    for (const event of events) {
      expect(fromParsed.observe(event, parsedData(event))).toEqual(fromText.observe(event));
    }
    expect(fromParsed.usage()).toEqual(fromText.usage());
    expect(fromParsed.finishReason()).toEqual(fromText.finishReason());
  });

  it('marks only the choices-less usage chunk, from parsed data as from text', () => {
    const events = [
      chunk({ choices: [{ index: 0, delta: { content: 'usage' } }], usage: null }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }),
      chunk({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }),
    ];
    for (const observe of [
      (tap: ReturnType<typeof createChatUsageTap>, event: UpstreamEvent) => tap.observe(event),
      (tap: ReturnType<typeof createChatUsageTap>, event: UpstreamEvent) =>
        tap.observe(event, parsedData(event)),
    ]) {
      const tap = createChatUsageTap();
      expect(events.map((event) => observe(tap, event).usageChunk)).toEqual([false, false, true]);
      expect(tap.finishReason()?.raw).toBe('stop');
      expect(tap.usage()?.inputTokens.total).toBe(7);
      expect(tap.usage()?.outputTokens.total).toBe(3);
    }
  });
});
