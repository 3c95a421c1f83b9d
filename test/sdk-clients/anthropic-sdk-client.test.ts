import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  expectUpstreamCredential,
  onlyGenerationRequest,
  sdkModels,
  startSdkTestBed,
  weatherSchema,
} from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: weatherSchema,
};

/** The schema as each upstream dialect carries it. */
function upstreamToolSchema(body: unknown): unknown {
  const tools = (body as { tools?: Record<string, unknown>[] }).tools ?? [];
  const tool = tools[0] ?? {};
  return tool.input_schema ?? (tool.function as { parameters?: unknown } | undefined)?.parameters;
}

describe('@anthropic-ai/sdk against a listening gateway', () => {
  const bed = useTestBed(startSdkTestBed);
  let client: Anthropic;

  beforeAll(() => {
    client = new Anthropic({ baseURL: bed.origin, apiKey: bed.token, maxRetries: 0 });
  });
  beforeEach(() => bed.fake.reset());

  const backings = [
    { label: 'anthropic upstream (same dialect)', model: sdkModels.anthropic },
    { label: 'openai-chat upstream (cross dialect)', model: sdkModels.chat },
  ];

  for (const { label, model } of backings) {
    describe(label, () => {
      it('messages.create returns the text and usage', async () => {
        bed.fake.enqueue({
          output: [{ text: 'Sunny, 21 degrees.' }],
          usage: { input: 31, output: 7 },
        });
        const message = await client.messages.create({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        });
        expect(message.stop_reason).toBe('end_turn');
        expect(message.content).toEqual([
          expect.objectContaining({ type: 'text', text: 'Sunny, 21 degrees.' }),
        ]);
        expect(message.usage).toMatchObject({ input_tokens: 31, output_tokens: 7 });
        expectUpstreamCredential(onlyGenerationRequest(bed.fake), bed.token);
      });

      it('messages.stream(...).finalMessage() assembles the streamed text', async () => {
        const text = 'A long streamed answer, split into many small deltas.';
        bed.fake.enqueue({ output: [{ text }], usage: { input: 44, output: 12 } });
        const stream = client.messages.stream({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: 'Tell me something.' }],
        });
        const deltas: string[] = [];
        stream.on('text', (delta) => deltas.push(delta));
        const message = await stream.finalMessage();
        expect(deltas.length).toBeGreaterThan(1);
        expect(deltas.join('')).toBe(text);
        expect(message.content).toEqual([expect.objectContaining({ type: 'text', text })]);
        expect(message.stop_reason).toBe('end_turn');
        expect(message.usage).toMatchObject({ input_tokens: 44, output_tokens: 12 });
        const upstream = onlyGenerationRequest(bed.fake);
        expect(upstream.body).toMatchObject({ stream: true });
        expectUpstreamCredential(upstream, bed.token);
      });

      for (const streamed of [false, true]) {
        it(`a tool call keeps its id, name and whole input (${streamed ? 'stream' : 'JSON'})`, async () => {
          const input = { city: 'Rome, "Italy"', unit: 'C' };
          bed.fake.enqueue({
            output: [
              { text: 'Checking.' },
              {
                toolCall: {
                  id: 'toolu_weather_1',
                  name: 'get_weather',
                  arguments: JSON.stringify(input),
                },
              },
            ],
            usage: { input: 50, output: 20 },
          });
          const request = {
            model,
            max_tokens: 256,
            tools: [weatherTool],
            messages: [{ role: 'user' as const, content: 'Weather in Rome?' }],
          };
          const message = streamed
            ? await client.messages.stream(request).finalMessage()
            : await client.messages.create(request);
          expect(message.stop_reason).toBe('tool_use');
          const toolUse = message.content.find((block) => block.type === 'tool_use');
          expect(toolUse).toMatchObject({ id: 'toolu_weather_1', name: 'get_weather' });
          expect(toolUse?.type === 'tool_use' ? toolUse.input : undefined).toEqual(input);
          expect(message.usage).toMatchObject({ input_tokens: 50, output_tokens: 20 });
          expect(upstreamToolSchema(onlyGenerationRequest(bed.fake).body)).toEqual(weatherSchema);
        });
      }
    });
  }

  it('accepts the token sent only as x-api-key', async () => {
    const sent: Headers[] = [];
    const keyClient = new Anthropic({
      baseURL: bed.origin,
      apiKey: null,
      authToken: null,
      defaultHeaders: { 'x-api-key': bed.token },
      maxRetries: 0,
      middleware: [
        (request, next) => {
          sent.push(new Headers(request.headers));
          return next(request);
        },
      ],
    });
    bed.fake.enqueue({ output: [{ text: 'hello' }] });
    const message = await keyClient.messages.create({
      model: sdkModels.anthropic,
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'hello' })]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.get('x-api-key')).toBe(bed.token);
    expect(sent[0]?.has('authorization')).toBe(false);
    expectUpstreamCredential(onlyGenerationRequest(bed.fake), bed.token);
  });

  it('models.list() lists the configured ids', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(Object.values(sdkModels).sort());
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('an invalid token throws AuthenticationError with status 401', async () => {
    const stranger = new Anthropic({
      baseURL: bed.origin,
      apiKey: 'sy-not-a-token',
      maxRetries: 0,
    });
    const attempt = stranger.messages.create({
      model: sdkModels.anthropic,
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(attempt).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(attempt).rejects.toMatchObject({ status: 401 });
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('messages.countTokens returns the upstream count for the anthropic-backed model', async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 1234 });
    const count = await client.messages.countTokens({
      model: sdkModels.anthropic,
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
      tools: [weatherTool],
    });
    expect(count.input_tokens).toBe(1234);
    const [upstream] = bed.fake.requests;
    expect(upstream?.path).toBe('/v1/messages/count_tokens');
    expect(upstream?.body).toMatchObject({ model: `${sdkModels.anthropic}-upstream` });
    expectUpstreamCredential(upstream, bed.token);
  });
});
