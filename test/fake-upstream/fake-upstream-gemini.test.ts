import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeGeminiResult } from '../../src/providers/gemini/decode-gemini-result.ts';
import { createGeminiStreamDecoder } from '../../src/providers/gemini/decode-gemini-stream.ts';
import { readGoogleRetryDelayMs } from '../../src/providers/shared/google-retry-info.ts';
import { callFakeUpstream, eventDataOf, eventsOf, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeReply, FakeUpstream } from './fake-upstream-server.ts';
import { echoLastToolResult } from './read-fake-tool-results.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({ requireKey: 'gemini-key', promptCache: true });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const call = { model: 'public', messages: [], tools: [], stream: false };
const question = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };

function gemini(model: string, method: string, body: Record<string, unknown>, key = 'gemini-key') {
  const query = method === 'streamGenerateContent' ? '?alt=sse' : '';
  return callFakeUpstream(`${fake.url}/v1beta/models/${model}:${method}${query}`, {
    headers: { 'x-goog-api-key': key },
    body,
  });
}

const thinkingCall: FakeReply = {
  output: [
    { reasoning: { text: 'The user wants the weather.' } },
    { toolCall: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
  ],
  usage: { input: 100, cacheRead: 20, output: 40, reasoning: 30 },
};

describe('fake upstream: the Gemini API', () => {
  it('answers generateContent with thoughts, a signed call and usage the codec reads exactly', async () => {
    fake.enqueue(thinkingCall);
    const answer = await gemini('gemini-3-pro-preview', 'generateContent', {
      contents: [question],
    });
    expect(answer.status).toBe(200);
    const body = jsonOf(answer);
    expect(body.modelVersion).toBe('gemini-3-pro-preview');
    const parts = body.candidates[0].content.parts;
    expect(parts[0]).toEqual({ text: 'The user wants the weather.', thought: true });
    expect(parts[1].functionCall).toEqual({ name: 'get_weather', args: { city: 'Paris' } });
    expect(typeof parts[1].thoughtSignature).toBe('string');
    const result = decodeGeminiResult(body, call);
    expect(result.usage).toEqual({
      inputTokens: { total: 120, noCache: 100, cacheRead: 20, cacheWrite5m: 0, cacheWrite1h: 0 },
      outputTokens: { total: 40, reasoning: 30 },
    });
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
  });

  it('streams SSE chunks that decode to the same answer, the route deciding the streaming', async () => {
    fake.enqueue(thinkingCall, thinkingCall);
    const json = decodeGeminiResult(
      jsonOf(await gemini('gemini-2.5-pro', 'generateContent', { contents: [question] })),
      call,
    );
    const stream = await gemini('gemini-2.5-pro', 'streamGenerateContent', {
      contents: [question],
    });
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(eventsOf(stream).length).toBeGreaterThan(3);
    const decoder = createGeminiStreamDecoder({ ...call, stream: true });
    const parts = [
      ...eventsOf(stream).flatMap((event) => decoder.push({ data: event.data })),
      ...decoder.end(),
    ];
    const finish = parts.at(-1);
    expect(finish).toEqual({ type: 'finish', finishReason: json.finishReason, usage: json.usage });
    const thoughts = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []));
    expect(thoughts.join('')).toBe('The user wants the weather.');
  });

  it('echoes the last user text when nothing is queued and counts tokens on :countTokens', async () => {
    const answer = jsonOf(
      await gemini('gemini-2.5-flash', 'generateContent', { contents: [question] }),
    );
    expect(answer.candidates[0].content.parts).toEqual([{ text: 'echo: Weather in Paris?' }]);
    fake.enqueueTokenCount({ inputTokens: 77 });
    const count = await gemini('gemini-2.5-flash', 'countTokens', { contents: [question] });
    expect(jsonOf(count)).toEqual({ totalTokens: 77 });
  });

  it('refuses a wrong key in Google’s error shape and throttles with a RetryInfo wait', async () => {
    const refused = await gemini(
      'gemini-2.5-flash',
      'generateContent',
      { contents: [question] },
      'nope',
    );
    expect(refused.status).toBe(401);
    expect(jsonOf(refused).error.status).toBe('UNAUTHENTICATED');
    fake.behaveForKey('gemini-key', { status: 429 });
    const throttled = await gemini('gemini-2.5-flash', 'generateContent', { contents: [question] });
    expect(throttled.status).toBe(429);
    expect(jsonOf(throttled).error.status).toBe('RESOURCE_EXHAUSTED');
    expect(readGoogleRetryDelayMs(jsonOf(throttled))).toBe(12_000);
  });

  it('checks replayed signatures: exact and on their part, and required by Gemini 3 in a tool loop', async () => {
    fake.enqueue(thinkingCall);
    const first = jsonOf(
      await gemini('gemini-3-pro-preview', 'generateContent', { contents: [question] }),
    );
    const modelContent = first.candidates[0].content;
    const result = {
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
    };
    fake.enqueue(echoLastToolResult(), echoLastToolResult());
    const replay = await gemini('gemini-3-pro-preview', 'generateContent', {
      contents: [question, modelContent, result],
    });
    expect(replay.status).toBe(200);
    expect(jsonOf(replay).candidates[0].content.parts[0].text).toBe('The tool said: sunny');

    const stripped = {
      role: 'model',
      parts: modelContent.parts.map(
        ({ thoughtSignature: _s, ...part }: Record<string, unknown>) => part,
      ),
    };
    const missing = await gemini('gemini-3-pro-preview', 'generateContent', {
      contents: [question, stripped, result],
    });
    expect(missing.status).toBe(400);
    expect(jsonOf(missing).error.message).toContain('thought_signature');
    // Gemini 2.5 does not require them.
    const older = await gemini('gemini-2.5-pro', 'generateContent', {
      contents: [question, stripped, result],
    });
    expect(older.status).toBe(200);

    const moved = {
      role: 'model',
      parts: [{ text: 'x', thoughtSignature: modelContent.parts[1].thoughtSignature }],
    };
    const corrupted = await gemini('gemini-2.5-pro', 'generateContent', {
      contents: [question, moved, result],
    });
    expect(corrupted.status).toBe(400);
    expect(jsonOf(corrupted).error.message).toBe('Corrupted thought signature.');
  });

  it('reports implicit cache reads on a repeated prefix, per key', async () => {
    const system = { parts: [{ text: 'You are terse. '.repeat(40) }] };
    const body = { systemInstruction: system, contents: [question] };
    const first = jsonOf(await gemini('gemini-2.5-flash', 'generateContent', body));
    expect(first.usageMetadata.cachedContentTokenCount).toBeUndefined();
    const second = jsonOf(await gemini('gemini-2.5-flash', 'generateContent', body));
    expect(second.usageMetadata.cachedContentTokenCount).toBeGreaterThan(0);
    expect(second.usageMetadata.promptTokenCount).toBe(first.usageMetadata.promptTokenCount);
  });

  it('ends a failing stream with a Google error chunk', async () => {
    fake.enqueue({
      output: [{ text: 'A long answer in pieces.' }],
      midStreamError: { afterEvents: 2 },
    });
    const stream = await gemini('gemini-2.5-flash', 'streamGenerateContent', {
      contents: [question],
    });
    const data = eventDataOf(stream);
    expect(data).toHaveLength(3);
    expect(data[2].error.status).toBe('INTERNAL');
  });
});
