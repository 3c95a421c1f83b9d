import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { testModel } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';
import { weatherSchema } from './sdk-test-setup.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const key = 'gemini-sdk-key-5a7c';

/** The official SDKs' own stream helpers over a Gemini deployment (Gemini 3, strict signatures). */
describe('SDK clients on a gemini deployment', () => {
  const bed = useUpstreamTestBed({
    providers: { google: { kind: 'gemini', apiKeyEnv: 'GEMINI_SDK_KEY' } },
    models: [
      testModel('gemini-sdk', 'google', {
        deployments: [{ provider: 'google', upstreamModel: 'gemini-3-pro-preview' }],
      }),
    ],
    env: { GEMINI_SDK_KEY: key },
    upstreamKey: key,
    listen: true,
  });
  beforeEach(() => bed.fake.reset());

  const lastContents = () => (bed.fake.requests.at(-1)?.body as Json).contents as Json[];

  it('@anthropic-ai/sdk: a streamed thinking tool call, replayed from finalMessage(), passes Gemini 3’s check', async () => {
    const client = new Anthropic({ baseURL: bed.origin, apiKey: bed.token, maxRetries: 0 });
    bed.fake.enqueue({
      output: [
        { reasoning: { text: 'I should look it up.' } },
        { toolCall: { name: 'get_weather', arguments: '{"city":"Paris","unit":"C"}' } },
      ],
      usage: { input: 30, output: 40, reasoning: 20 },
    });
    const request = {
      model: 'gemini-sdk',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: weatherSchema }],
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const first = await client.messages.stream(request).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use');
    expect(call?.input).toEqual({ city: 'Paris', unit: 'C' });
    const signed = first.content.find(
      (block) => block.type === 'thinking' && block.signature.startsWith('sy1.google.'),
    );
    expect(signed).toBeDefined();

    bed.fake.enqueue({ output: [{ text: '18 degrees.' }], usage: { input: 60, output: 4 } });
    const second = await client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: '18C' }],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: '18 degrees.' }]);
    const modelTurn = lastContents()[1];
    expect(modelTurn?.parts).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'C' } },
        thoughtSignature: expect.any(String) as unknown,
      },
    ]);
  });

  it('openai chat: streamed parallel calls get distinct ids; Gemini 3 refuses their unsigned replay with a readable 400', async () => {
    const client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.token, maxRetries: 0 });
    bed.fake.enqueue({
      output: [
        { toolCall: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { toolCall: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
      usage: { input: 30, output: 20 },
    });
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: weatherSchema } },
    ];
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Oslo and Rome?' },
    ];
    const completion = await client.chat.completions
      .stream({ model: 'gemini-sdk', messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((call) => call.type === 'function' && call.function.arguments)).toEqual([
      '{"city":"Oslo"}',
      '{"city":"Rome"}',
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(completion.usage?.prompt_tokens).toBe(30);

    // A chat client has no field for a signature (docs/decisions/0153): Gemini 3 refuses its tool
    // loop, and the client is told why; the results still went by name and in order.
    const next = await client.chat.completions
      .create({
        model: 'gemini-sdk',
        tools,
        messages: [
          ...messages,
          completion.choices[0]!.message as OpenAI.Chat.ChatCompletionMessageParam,
          ...calls.map((call, index) => ({
            role: 'tool' as const,
            tool_call_id: call.id,
            content: index === 0 ? '2C' : '24C',
          })),
        ],
      })
      .catch((error: unknown) => error);
    // The fake answers as Gemini 3 does: the call lost its signature.
    expect(next).toBeInstanceOf(OpenAI.APIError);
    expect((next as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((next as Error).message).toContain('thought_signature');
    expect(lastContents().at(-1)?.parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { output: '2C' } } },
      { functionResponse: { name: 'get_weather', response: { output: '24C' } } },
    ]);
  });
});
