import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { readGeminiJsonFixture } from './__fixtures__/read-gemini-fixture.ts';
import { decodeGeminiResult } from './decode-gemini-result.ts';

const call: GenerationCall = { model: 'switchyard/gemini', messages: [], tools: [], stream: false };

describe('decodeGeminiResult', () => {
  it('keeps thoughts, the signature before the call it came with, and mints stable call ids', () => {
    const body = readGeminiJsonFixture('generate-content-thinking-tool.json');
    const result = decodeGeminiResult(body, call);
    expect(result.content).toEqual([
      {
        type: 'reasoning',
        text: '**Checking the forecast**\n\nThe user wants the weather in Paris, so I should call the tool.',
        provider: 'google',
      },
      {
        type: 'reasoning',
        text: '',
        signature: 'CiQBcsjafH3nmvW1ZIxQ7Wm0uS5aT5Yb0q8Ffm8n1JmCvmdDWz0Kag==',
        provider: 'google',
      },
      {
        type: 'tool-call',
        toolCallId: 'call_mK9iaPy1HcnR7M8P4bGx-Qk_0',
        toolName: 'get_weather',
        input: '{"location":"Paris, FR","unit":"c"}',
      },
      {
        type: 'tool-call',
        toolCallId: 'call_mK9iaPy1HcnR7M8P4bGx-Qk_1',
        toolName: 'get_time',
        input: '{"timezone":"Europe/Paris"}',
      },
    ]);
    // The same answer decoded again names its calls the same way.
    expect(decodeGeminiResult(body, call).content).toEqual(result.content);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
    expect(result.id).toBe('mK9iaPy1HcnR7M8P4bGx-Qk');
    expect(result.model).toBe('gemini-2.5-pro');
  });

  it('counts cached prompt tokens as cache reads and thoughts as output reasoning', () => {
    const result = decodeGeminiResult(
      readGeminiJsonFixture('generate-content-thinking-tool.json'),
      call,
    );
    expect(result.usage).toEqual({
      inputTokens: { total: 1210, noCache: 186, cacheRead: 1024, cacheWrite5m: 0, cacheWrite1h: 0 },
      outputTokens: { total: 162, reasoning: 124 },
    });
  });

  it('reads a blocked prompt as an empty answer with a content-filter finish, not an error', () => {
    const result = decodeGeminiResult(
      readGeminiJsonFixture('generate-content-prompt-blocked.json'),
      call,
    );
    expect(result.content).toEqual([]);
    expect(result.finishReason).toEqual({ unified: 'content-filter', raw: 'PROHIBITED_CONTENT' });
    expect(result.usage.inputTokens.total).toBe(42);
  });

  it('keeps the id Gemini gave a call', () => {
    const result = decodeGeminiResult(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: 'fc-7', name: 'lookup', args: {} } }],
            },
            finishReason: 'STOP',
          },
        ],
      },
      call,
    );
    expect(result.content).toEqual([
      { type: 'tool-call', toolCallId: 'fc-7', toolName: 'lookup', input: '{}' },
    ]);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['BLOCKLIST', 'content-filter'],
    ['SPII', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['OTHER', 'other'],
  ])('maps finishReason %s to %s, keeping the raw word', (raw, unified) => {
    const result = decodeGeminiResult(
      { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: raw }] },
      call,
    );
    expect(result.finishReason).toEqual({ unified, raw });
  });
});
