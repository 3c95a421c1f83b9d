import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAnthropicSseFixture } from './__fixtures__/read-anthropic-sse-fixture.ts';
import { createAnthropicUsageTap } from './create-anthropic-usage-tap.ts';
import { createAnthropicStreamDecoder } from './decode-anthropic-stream.ts';

const call = { model: 'm', messages: [], tools: [], stream: true };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createAnthropicUsageTap', () => {
  it.each(['stream-text-cached.sse', 'stream-thinking-parallel-tools.sse'])(
    'reads the same usage and finish reason as the full decoder from %s',
    (name) => {
      const events = readAnthropicSseFixture(name);
      const tap = createAnthropicUsageTap();
      events.forEach((event) => tap.observe(event));
      const decoder = createAnthropicStreamDecoder(call);
      const finish = events
        .flatMap((event) => decoder.push(event))
        .find((part) => part.type === 'finish');
      expect(finish?.type).toBe('finish');
      expect(tap.usage()).toEqual(finish?.type === 'finish' && finish.usage);
      expect(tap.finishReason()).toEqual(finish?.type === 'finish' && finish.finishReason);
      expect(tap.completed()).toBe(true);
      expect(tap.error()).toBeUndefined();
    },
  );

  it('parses only message_start, message_delta and error events', () => {
    const events = readAnthropicSseFixture('stream-thinking-parallel-tools.sse');
    const parse = vi.spyOn(JSON, 'parse');
    const tap = createAnthropicUsageTap();
    events.forEach((event) => tap.observe(event));
    expect(events.length).toBeGreaterThan(10);
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('reads the data the relay parsed already and parses nothing itself', () => {
    const events = readAnthropicSseFixture('stream-text-cached.sse');
    const parsed = events.map((event) => JSON.parse(event.data) as unknown);
    const parse = vi.spyOn(JSON, 'parse');
    const tap = createAnthropicUsageTap();
    events.forEach((event, index) => tap.observe(event, parsed[index]));
    expect(parse).not.toHaveBeenCalled();
    expect(tap.usage()?.inputTokens.total).toBe(12 + 18230 + 2048);
    expect(tap.finishReason()?.unified).toBe('stop');
    expect(tap.completed()).toBe(true);
  });

  it('knows no usage before message_start', () => {
    expect(createAnthropicUsageTap().usage()).toBeUndefined();
  });

  it('finds the event kind in the data when the event name is missing', () => {
    const tap = createAnthropicUsageTap();
    for (const event of readAnthropicSseFixture('stream-text-cached.sse'))
      tap.observe({ data: event.data });
    expect(tap.usage()?.inputTokens.total).toBe(12 + 18230 + 2048);
    expect(tap.completed()).toBe(true);
  });

  it('keeps the input usage of a stream cut short and says message_stop was not seen', () => {
    const tap = createAnthropicUsageTap();
    readAnthropicSseFixture('stream-overloaded-error.sse').forEach((event) => tap.observe(event));
    expect(tap.usage()?.inputTokens.total).toBe(25);
    expect(tap.usage()?.outputTokens.total).toBe(1);
    expect(tap.completed()).toBe(false);
    expect(tap.error()).toMatchObject({ code: 'not_ready' });
    expect(tap.finishReason()).toBeUndefined();
  });
});
