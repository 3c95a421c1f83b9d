import { describe, expect, it, vi } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import {
  readOpenAIResponsesJsonFixture,
  readOpenAIResponsesSseFixture,
} from './__fixtures__/read-openai-responses-fixture.ts';
import {
  convertToOpenAIInputTokensRequest,
  openAIResponsesInputTokensPath,
  readOpenAIInputTokens,
} from './convert-to-openai-input-tokens-request.ts';
import { createResponsesUsageTap, readResponsesResultUsage } from './create-responses-usage-tap.ts';
import { prepareResponsesPassthrough } from './prepare-responses-passthrough.ts';

const usage = {
  inputTokens: { total: 2941, noCache: 125, cacheRead: 2816, cacheWrite5m: 0, cacheWrite1h: 0 },
  outputTokens: { total: 187, reasoning: 128 },
};

describe('createResponsesUsageTap', () => {
  it('reads the exact usage from response.completed and marks the stream complete', () => {
    const tap = createResponsesUsageTap();
    const events = readOpenAIResponsesSseFixture('stream-reasoning-text.sse');
    for (const event of events.slice(0, -1)) tap.observe(event);
    expect(tap.usage).toBeUndefined();
    expect(tap.completed).toBe(false);
    tap.observe(events.at(-1) ?? { data: '' });
    expect(tap.usage).toEqual(usage);
    expect(tap.completed).toBe(true);
    expect(tap.finishReason).toEqual({ unified: 'stop', raw: 'completed' });
  });

  it('reads the data the relay parsed already, names dropped or not, and parses nothing itself', () => {
    const events = readOpenAIResponsesSseFixture('stream-reasoning-text.sse');
    const parsed = events.map((event) => JSON.parse(event.data) as unknown);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const named = createResponsesUsageTap();
      const unnamed = createResponsesUsageTap();
      events.forEach((event, index) => {
        named.observe(event, parsed[index]);
        unnamed.observe({ data: event.data }, parsed[index]);
      });
      expect(parse).not.toHaveBeenCalled();
      expect(named.usage).toEqual(usage);
      expect(unnamed.usage).toEqual(usage);
      expect(unnamed.completed).toBe(true);
    } finally {
      parse.mockRestore();
    }
  });

  it('works when a relay dropped the SSE event names', () => {
    const tap = createResponsesUsageTap();
    for (const event of readOpenAIResponsesSseFixture('stream-incomplete.sse'))
      tap.observe({ data: event.data });
    expect(tap.usage?.outputTokens.total).toBe(16);
    expect(tap.finishReason).toEqual({ unified: 'length', raw: 'max_output_tokens' });
  });

  it('records response.failed as an error, not as a completion', () => {
    const tap = createResponsesUsageTap();
    for (const event of readOpenAIResponsesSseFixture('stream-failed.sse')) tap.observe(event);
    expect(tap.completed).toBe(false);
    expect(tap.error).toMatchObject({ code: 'upstream_rate_limited' });
  });

  it('reads the usage of a whole response object', () => {
    expect(
      readResponsesResultUsage(
        readOpenAIResponsesJsonFixture('response-reasoning-function-call.json'),
      ),
    ).toEqual(usage);
    expect(readResponsesResultUsage({ id: 'x' })).toBeUndefined();
  });
});

describe('prepareResponsesPassthrough', () => {
  it('replaces the model and keeps every other field, unknown ones included', () => {
    const body = {
      model: 'public',
      input: 'hi',
      store: false,
      client_metadata: { a: '1' },
      future_field: [1],
    };
    const prepared = prepareResponsesPassthrough(body, { upstreamModel: 'gpt-5.1' });
    expect(prepared).toEqual({ ...body, model: 'gpt-5.1' });
    expect(body.model).toBe('public');
  });
});

describe('convertToOpenAIInputTokensRequest', () => {
  const call: GenerationCall = {
    model: 'public',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'sys' }] },
      { role: 'user', content: [{ type: 'text', text: 'count me' }] },
    ],
    tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object' } }],
    maxOutputTokens: 4,
    temperature: 1,
    stream: true,
    stopSequences: ['x'],
  };

  it('sends only what the model would read and no output-only issues', () => {
    const { value, issues } = convertToOpenAIInputTokensRequest(call, { upstreamModel: 'gpt-5.1' });
    expect(openAIResponsesInputTokensPath).toBe('/v1/responses/input_tokens');
    expect(Object.keys(value).sort()).toEqual(['input', 'instructions', 'model', 'tools']);
    expect(issues).toEqual([]);
  });

  it('still reports what the counted input cannot carry', () => {
    const { issues } = convertToOpenAIInputTokensRequest(
      { ...call, messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: 't' }] }] },
      { upstreamModel: 'gpt-5.1' },
    );
    expect(issues.map((issue) => issue.path)).toEqual(['messages[0].content[0]']);
  });

  it('reads the count of the answer', () => {
    expect(readOpenAIInputTokens({ object: 'response.input_tokens', input_tokens: 1234 })).toBe(
      1234,
    );
    expect(readOpenAIInputTokens({ input_tokens: -1 })).toBeUndefined();
  });
});
