import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  expectUpstreamCredential,
  onlyGenerationRequest,
  sdkModels,
  startSdkTestBed,
  weatherSchema,
} from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherSchema },
};

const parallelCalls = [
  { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris","unit":"C"}' },
  { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome, \\"Italy\\""}' },
];

/** The schema as each upstream dialect carries it. */
function upstreamToolSchema(body: unknown): unknown {
  const tools = (body as { tools?: Record<string, unknown>[] }).tools ?? [];
  const tool = tools[0] ?? {};
  return tool.input_schema ?? (tool.function as { parameters?: unknown } | undefined)?.parameters;
}

function toolCallsOf(completion: ChatCompletion) {
  return (completion.choices[0]?.message.tool_calls ?? []).map((call) =>
    call.type === 'function'
      ? { id: call.id, name: call.function.name, arguments: call.function.arguments }
      : { id: call.id, name: undefined, arguments: undefined },
  );
}

describe('openai SDK chat completions against a listening gateway', () => {
  const bed = useTestBed(startSdkTestBed);
  let client: OpenAI;

  beforeAll(() => {
    client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.token, maxRetries: 0 });
  });
  beforeEach(() => bed.fake.reset());

  const backings = [
    { label: 'openai-chat upstream (same dialect)', model: sdkModels.chat },
    { label: 'anthropic upstream (cross dialect)', model: sdkModels.anthropic },
  ];

  for (const { label, model } of backings) {
    describe(label, () => {
      it('chat.completions.create answers text with usage in OpenAI semantics', async () => {
        bed.fake.enqueue({
          output: [{ text: 'Sunny, 21 degrees.' }],
          usage: { input: 40, cacheRead: 60, output: 7 },
        });
        const completion = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        });
        expect(completion.choices[0]?.message.content).toBe('Sunny, 21 degrees.');
        expect(completion.choices[0]?.finish_reason).toBe('stop');
        // OpenAI prompt counts include cached reads.
        expect(completion.usage).toMatchObject({
          prompt_tokens: 100,
          completion_tokens: 7,
          total_tokens: 107,
        });
        expectUpstreamCredential(onlyGenerationRequest(bed.fake), bed.token);
      });

      it('chat.completions.create returns two parallel tool calls exactly', async () => {
        bed.fake.enqueue({
          output: parallelCalls.map((call) => ({ toolCall: call })),
          usage: { input: 25, output: 30 },
        });
        const completion = await client.chat.completions.create({
          model,
          tools: [weatherTool],
          messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
        });
        expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
        expect(toolCallsOf(completion)).toEqual(parallelCalls);
        expect(completion.usage?.prompt_tokens).toBe(25);
        const upstream = onlyGenerationRequest(bed.fake);
        expect(upstreamToolSchema(upstream.body)).toEqual(weatherSchema);
        expectUpstreamCredential(upstream, bed.token);
      });

      it('chat.completions.stream(...).finalChatCompletion() rebuilds parallel tool calls and usage', async () => {
        bed.fake.enqueue({
          output: parallelCalls.map((call) => ({ toolCall: call })),
          usage: { input: 20, cacheRead: 12, output: 30 },
        });
        const stream = client.chat.completions.stream({
          model,
          tools: [weatherTool],
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
        });
        const finished: string[] = [];
        stream.on('tool_calls.function.arguments.done', (event) => finished.push(event.name));
        const completion = await stream.finalChatCompletion();
        expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
        expect(toolCallsOf(completion)).toEqual(parallelCalls);
        expect(finished).toEqual(['get_weather', 'get_weather']);
        expect(completion.usage).toMatchObject({ prompt_tokens: 32, completion_tokens: 30 });
        const upstream = onlyGenerationRequest(bed.fake);
        expect(upstream.body).toMatchObject({ stream: true });
        expect(upstreamToolSchema(upstream.body)).toEqual(weatherSchema);
        expectUpstreamCredential(upstream, bed.token);
      });

      it('a plain create stream delivers text in pieces and a usage-only chunk', async () => {
        const text = 'Streamed words arriving in several small pieces.';
        bed.fake.enqueue({ output: [{ text }], usage: { input: 15, output: 11 } });
        const stream = await client.chat.completions.create({
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Say something.' }],
        });
        const pieces: string[] = [];
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          const piece = chunk.choices[0]?.delta.content;
          if (typeof piece === 'string' && piece !== '') pieces.push(piece);
          if (chunk.usage) {
            expect(chunk.choices).toEqual([]);
            usage = chunk.usage;
          }
        }
        expect(pieces.length).toBeGreaterThan(1);
        expect(pieces.join('')).toBe(text);
        expect(usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 11 });
      });
    });
  }

  it('models.list() lists the configured ids', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(Object.values(sdkModels).sort());
  });

  it('an invalid token throws AuthenticationError with status 401', async () => {
    const stranger = new OpenAI({
      baseURL: `${bed.origin}/v1`,
      apiKey: 'sy-not-a-token',
      maxRetries: 0,
    });
    const attempt = stranger.chat.completions.create({
      model: sdkModels.chat,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(attempt).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(attempt).rejects.toMatchObject({ status: 401 });
    expect(bed.fake.requests).toHaveLength(0);
  });
});
