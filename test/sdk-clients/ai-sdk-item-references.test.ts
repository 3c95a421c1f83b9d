import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai';
import { beforeEach, describe, expect, it } from 'vitest';
import { sdkModels, startSdkTestBed, weatherSchema } from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

/**
 * Issue 14 §3: `@ai-sdk/openai`'s responses model with its default settings (`store` left to the
 * dialect's default, true) sends `item_reference` items for earlier output; the gateway expands
 * them from its own stored responses on every route, since no upstream ever kept them.
 */

const weatherCall = { id: 'call_ref_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };

describe('@ai-sdk/openai responses model with default settings', () => {
  const bed = useTestBed(startSdkTestBed);
  /** The bodies the SDK sent to the gateway. */
  const sent: string[] = [];
  beforeEach(() => {
    bed.fake.reset();
    sent.length = 0;
  });

  /** The SDK's own transport (it calls fetch), with the body noted on the way. */
  const sdkTransport = globalThis.fetch;
  const model = (id: string) =>
    createOpenAI({
      baseURL: `${bed.origin}/v1`,
      apiKey: bed.token,
      fetch: async (url, init) => {
        sent.push(String(init?.body));
        return sdkTransport(url, init);
      },
    }).responses(id);

  /** What the client sent to the gateway and what the gateway sent upstream, per call. */
  const generationRequests = () =>
    bed.fake.requests.filter((request) => request.dialect !== undefined);

  for (const [upstream, modelId] of Object.entries(sdkModels)) {
    describe(`towards the ${upstream} upstream`, () => {
      it('runs a tool loop on a reasoning model, its reasoning referenced by id', async () => {
        bed.fake.enqueue(
          { output: [{ reasoning: { text: 'I need the weather.' } }, { toolCall: weatherCall }] },
          { output: [{ text: 'Oslo: 4 degrees.' }] },
        );
        const executed: unknown[] = [];
        const result = await generateText({
          model: model(modelId),
          prompt: 'Weather in Oslo?',
          tools: {
            get_weather: tool({
              description: 'Weather for a city',
              inputSchema: jsonSchema<{ city: string }>(weatherSchema),
              execute: async (input) => {
                executed.push(input);
                return '4C';
              },
            }),
          },
          stopWhen: stepCountIs(3),
          providerOptions: {
            openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' },
          },
        });
        expect(executed).toEqual([{ city: 'Oslo' }]);
        expect(result.text).toBe('Oslo: 4 degrees.');

        expect(sent[1]).toMatch(/"type":"item_reference","id":"rs_/);
        const requests = generationRequests();
        expect(requests).toHaveLength(2);
        const replayed = requests[1]?.rawBody ?? '';
        // The reference was expanded: the upstream gets the reasoning itself, then the call.
        expect(replayed).not.toContain('item_reference');
        expect(replayed).toContain('I need the weather.');
        expect(replayed).toContain(weatherCall.id);
        expect(replayed).toContain('4C');
      });

      it('continues a plain two-turn chat whose first answer is referenced by id', async () => {
        bed.fake.enqueue({ output: [{ text: 'Paris.' }] }, { output: [{ text: 'Rome.' }] });
        const messages: ModelMessage[] = [{ role: 'user', content: 'Capital of France?' }];
        const first = await generateText({ model: model(modelId), messages });
        expect(first.text).toBe('Paris.');
        messages.push(...first.response.messages, { role: 'user', content: 'And of Italy?' });
        const second = await generateText({ model: model(modelId), messages });
        expect(second.text).toBe('Rome.');

        expect(sent[1]).toMatch(/"type":"item_reference","id":"msg_/);
        const replayed = generationRequests()[1]?.rawBody ?? '';
        expect(replayed).not.toContain('item_reference');
        expect(replayed).toContain('Paris.');
        expect(replayed).toContain('And of Italy?');
      });
    });
  }

  it('refuses a reference to an item the account never stored, naming its path', async () => {
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: `Bearer ${bed.token}` },
      payload: {
        model: sdkModels.responses,
        input: [
          { role: 'user', content: 'Hi' },
          { type: 'item_reference', id: 'msg_not_stored_here' },
        ],
      },
    });
    expect(response.statusCode).toBe(400);
    const error = response.json().error;
    expect(error.message).toContain('msg_not_stored_here');
    expect(error.details.issues).toEqual([{ path: 'input[1].id', reason: expect.any(String) }]);
    expect(generationRequests()).toHaveLength(0);
  });

  it("refuses another account's item as if it were unknown", async () => {
    bed.fake.enqueue({ output: [{ text: 'Secret answer.' }] });
    const first = await generateText({ model: model(sdkModels.anthropic), prompt: 'Hi' });
    const itemId = (first.response.body as { output: Array<{ id: string }> }).output[0]?.id;
    expect(itemId).toMatch(/^msg_/);
    const other = await bed.gateway.createToken({ credits: 1_000_000 });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: `Bearer ${other.token}` },
      payload: { model: sdkModels.anthropic, input: [{ type: 'item_reference', id: itemId }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.issues[0].path).toBe('input[0].id');
    expect(generationRequests()).toHaveLength(1);
  });
});
