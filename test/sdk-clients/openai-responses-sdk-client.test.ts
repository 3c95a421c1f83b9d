import OpenAI from 'openai';
import type { Response } from 'openai/resources/responses/responses';
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
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: weatherSchema,
  strict: false,
};

const weatherCall = {
  id: 'call_weather_7',
  itemId: 'fc_weather_7',
  name: 'get_weather',
  arguments: '{"city":"Zürich","unit":"C"}',
};

/** The schema as each upstream dialect carries it. */
function upstreamToolSchema(body: unknown): unknown {
  const tools = (body as { tools?: Record<string, unknown>[] }).tools ?? [];
  const tool = tools[0] ?? {};
  return tool.input_schema ?? tool.parameters;
}

function functionCallsOf(response: Response) {
  return response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
}

describe('openai SDK responses against a listening gateway', () => {
  const bed = useTestBed(startSdkTestBed);
  let client: OpenAI;

  beforeAll(() => {
    client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.token, maxRetries: 0 });
  });
  beforeEach(() => bed.fake.reset());

  const backings = [
    { label: 'openai-responses upstream (same dialect)', model: sdkModels.responses, same: true },
    { label: 'anthropic upstream (cross dialect)', model: sdkModels.anthropic, same: false },
  ];

  for (const { label, model, same } of backings) {
    describe(label, () => {
      it('responses.create answers text with usage in OpenAI semantics', async () => {
        bed.fake.enqueue({
          output: [{ text: 'Sunny, 21 degrees.' }],
          usage: { input: 40, cacheRead: 60, output: 7 },
        });
        const response = await client.responses.create({ model, input: 'Weather in Paris?' });
        expect(response.status).toBe('completed');
        expect(response.output_text).toBe('Sunny, 21 degrees.');
        // OpenAI input counts include cached reads.
        expect(response.usage).toMatchObject({
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 60 },
          output_tokens: 7,
          total_tokens: 107,
        });
        expectUpstreamCredential(onlyGenerationRequest(bed.fake), bed.token);
      });

      for (const streamed of [false, true]) {
        it(`a function call keeps call_id, name and arguments (${streamed ? 'stream' : 'JSON'})`, async () => {
          bed.fake.enqueue({
            output: [{ toolCall: weatherCall }],
            usage: { input: 33, output: 18 },
          });
          const request = {
            model,
            tools: [weatherTool],
            input: [{ role: 'user' as const, content: 'Weather in Zürich?' }],
          };
          let argumentDeltas = 0;
          let response: Response;
          if (streamed) {
            const stream = client.responses.stream(request);
            stream.on('response.function_call_arguments.delta', () => (argumentDeltas += 1));
            response = await stream.finalResponse();
          } else {
            response = await client.responses.create(request);
          }
          expect(response.status).toBe('completed');
          const calls = functionCallsOf(response);
          expect(calls).toHaveLength(1);
          expect(calls[0]).toMatchObject({
            type: 'function_call',
            call_id: weatherCall.id,
            name: weatherCall.name,
          });
          expect(JSON.parse(calls[0]?.arguments ?? 'null')).toEqual(
            JSON.parse(weatherCall.arguments),
          );
          // The item id is the responses item's own (`fc_…`), never the call id.
          if (same) expect(calls[0]?.id).toBe(weatherCall.itemId);
          else expect(calls[0]?.id).not.toBe(weatherCall.id);
          if (streamed) expect(argumentDeltas).toBeGreaterThan(1);
          expect(response.usage).toMatchObject({
            input_tokens: 33,
            output_tokens: 18,
            total_tokens: 51,
          });
          const upstream = onlyGenerationRequest(bed.fake);
          expect(upstream.body).toMatchObject(streamed ? { stream: true } : {});
          expect(upstreamToolSchema(upstream.body)).toEqual(weatherSchema);
          expectUpstreamCredential(upstream, bed.token);
        });
      }

      it('responses.stream(...) emits text deltas that add up to finalResponse()', async () => {
        const text = 'A streamed answer with more than one delta.';
        bed.fake.enqueue({ output: [{ text }], usage: { input: 12, output: 10 } });
        const stream = client.responses.stream({ model, input: 'Say something.' });
        const deltas: string[] = [];
        stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
        const response = await stream.finalResponse();
        expect(deltas.length).toBeGreaterThan(1);
        expect(deltas.join('')).toBe(text);
        expect(response.output_text).toBe(text);
        expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 10 });
      });
    });
  }
});
