import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool, type LanguageModel } from 'ai';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  expectUpstreamCredential,
  onlyGenerationRequest,
  sdkModels,
  startSdkTestBed,
  weatherSchema,
  type SdkTestBed,
} from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const tools = {
  get_weather: tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string; unit?: 'C' | 'F' }>(weatherSchema),
  }),
};

const weatherCall = { id: 'call_ai_sdk_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };

/** The schema as each upstream dialect carries it. */
function upstreamToolSchema(body: unknown): unknown {
  const tools = (body as { tools?: Record<string, unknown>[] }).tools ?? [];
  const tool = tools[0] ?? {};
  return (
    tool.input_schema ??
    tool.parameters ??
    (tool.function as { parameters?: unknown } | undefined)?.parameters
  );
}

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;
type ModelFactory = (bed: SdkTestBed, model: string) => LanguageModel;

interface Backing {
  label: string;
  model: string;
  /** Options the streamed call needs on this route (see the `it.fails` case below). */
  streamOptions?: ProviderOptions;
}

const clients: { client: string; factory: ModelFactory; backings: Backing[] }[] = [
  {
    client: '@ai-sdk/openai chat',
    factory: (bed, model) =>
      createOpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.token }).chat(model),
    backings: [
      { label: 'openai-chat upstream (same dialect)', model: sdkModels.chat },
      { label: 'anthropic upstream (cross dialect)', model: sdkModels.anthropic },
    ],
  },
  {
    client: '@ai-sdk/anthropic',
    factory: (bed, model) =>
      createAnthropic({ baseURL: `${bed.origin}/v1`, apiKey: bed.token })(model),
    backings: [
      { label: 'anthropic upstream (same dialect)', model: sdkModels.anthropic },
      {
        label: 'openai-chat upstream (cross dialect)',
        model: sdkModels.chat,
      },
    ],
  },
];

describe('Vercel AI SDK against a listening gateway', () => {
  const bed = useTestBed(startSdkTestBed);
  beforeEach(() => bed.fake.reset());

  for (const { client, factory, backings } of clients) {
    for (const { label, model, streamOptions } of backings) {
      describe(`${client} → ${label}`, () => {
        it('generateText returns the text and usage', async () => {
          bed.fake.enqueue({
            output: [{ text: 'Sunny, 21 degrees.' }],
            usage: { input: 21, output: 6 },
          });
          const result = await generateText({
            model: factory(bed, model),
            prompt: 'Weather in Paris?',
            maxRetries: 0,
            maxOutputTokens: 256,
          });
          expect(result.text).toBe('Sunny, 21 degrees.');
          expect(result.finishReason).toBe('stop');
          expect(result.usage).toMatchObject({ inputTokens: 21, outputTokens: 6, totalTokens: 27 });
          expectUpstreamCredential(onlyGenerationRequest(bed.fake), bed.token);
        });

        it('generateText returns a tool call without executing it', async () => {
          bed.fake.enqueue({
            output: [{ toolCall: weatherCall }],
            usage: { input: 30, output: 14 },
          });
          const result = await generateText({
            model: factory(bed, model),
            prompt: 'Weather in Oslo?',
            tools,
            maxRetries: 0,
            maxOutputTokens: 256,
          });
          expect(result.finishReason).toBe('tool-calls');
          expect(result.toolCalls).toEqual([
            expect.objectContaining({
              toolCallId: weatherCall.id,
              toolName: weatherCall.name,
              input: JSON.parse(weatherCall.arguments),
            }),
          ]);
          expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 14 });
          const upstream = onlyGenerationRequest(bed.fake);
          expect(upstreamToolSchema(upstream.body)).toEqual(weatherSchema);
          expectUpstreamCredential(upstream, bed.token);
        });

        it('streamText streams text and a tool call with usage', async () => {
          bed.fake.enqueue({
            output: [{ text: 'Let me check the weather.' }, { toolCall: weatherCall }],
            usage: { input: 36, output: 19 },
          });
          const errors: unknown[] = [];
          const result = streamText({
            model: factory(bed, model),
            prompt: 'Weather in Oslo?',
            tools,
            maxRetries: 0,
            maxOutputTokens: 256,
            ...(streamOptions !== undefined ? { providerOptions: streamOptions } : {}),
            onError: ({ error }) => void errors.push(error),
          });
          const pieces: string[] = [];
          for await (const piece of result.textStream) pieces.push(piece);
          expect(errors).toEqual([]);
          expect(pieces.length).toBeGreaterThan(1);
          expect(pieces.join('')).toBe('Let me check the weather.');
          expect(await result.finishReason).toBe('tool-calls');
          expect(await result.toolCalls).toEqual([
            expect.objectContaining({
              toolCallId: weatherCall.id,
              toolName: weatherCall.name,
              input: JSON.parse(weatherCall.arguments),
            }),
          ]);
          expect(await result.usage).toMatchObject({ inputTokens: 36, outputTokens: 19 });
          const upstream = onlyGenerationRequest(bed.fake);
          expect(upstream.body).toMatchObject({ stream: true });
          expect(upstreamToolSchema(upstream.body)).toEqual(weatherSchema);
          expectUpstreamCredential(upstream, bed.token);
        });
      });
    }
  }

  // @ai-sdk/anthropic streams with `tools[i].eager_input_streaming: true` by default (its
  // `toolStreaming` option): an equivalent hint towards chat upstreams, never a 400.
  it('@ai-sdk/anthropic streamText with default options reaches an openai-chat model', async () => {
    bed.fake.enqueue({ output: [{ toolCall: weatherCall }], usage: { input: 10, output: 5 } });
    const errors: unknown[] = [];
    const result = streamText({
      model: createAnthropic({ baseURL: `${bed.origin}/v1`, apiKey: bed.token })(sdkModels.chat),
      prompt: 'Weather in Oslo?',
      tools,
      maxRetries: 0,
      maxOutputTokens: 256,
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();
    expect(errors).toEqual([]);
    expect(await result.toolCalls).toEqual([
      expect.objectContaining({ toolCallId: weatherCall.id, toolName: weatherCall.name }),
    ]);
  });
});
