import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai';
import { beforeEach, describe, expect, it } from 'vitest';
import { sdkModels, startSdkTestBed, weatherSchema } from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

/**
 * docs/decisions/0035: `@ai-sdk/openai`'s responses model with its default settings (`store` left
 * to the dialect's default, true) sends `item_reference` items for earlier output; the gateway
 * expands them from its own stored responses on every route, since no upstream ever kept them.
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

  it('stores a long conversation re-sent by references as one chain, each row only its own turn', async () => {
    const turns = 12;
    const toolTurn = 5;
    const ids: string[] = [];
    const idsOf = async (response: Response) => {
      const body = (await response.clone().json()) as { id?: unknown };
      if (typeof body.id === 'string') ids.push(body.id);
    };
    const recordingModel = createOpenAI({
      baseURL: `${bed.origin}/v1`,
      apiKey: bed.token,
      fetch: async (url, init) => {
        sent.push(String(init?.body));
        const response = await sdkTransport(url, init);
        await idsOf(response);
        return response;
      },
    }).responses(sdkModels.responses);
    const weather = tool({
      description: 'Weather for a city',
      inputSchema: jsonSchema<{ city: string }>(weatherSchema),
      execute: async () => '4C',
    });
    const messages: ModelMessage[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const number = String(turn).padStart(2, '0');
      messages.push({ role: 'user', content: `Question ${number}?` });
      if (turn === toolTurn) {
        bed.fake.enqueue({
          output: [
            { reasoning: { text: `Thinking ${number}.` } },
            { toolCall: { id: 'call_chain_1', name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        });
      }
      bed.fake.enqueue({
        output: [{ reasoning: { text: `Thinking ${number}.` } }, { text: `Answer ${number}.` }],
      });
      const result = await generateText({
        model: recordingModel,
        messages,
        tools: { get_weather: weather },
        stopWhen: stepCountIs(3),
        providerOptions: {
          openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' },
        },
      });
      expect(result.text).toBe(`Answer ${number}.`);
      messages.push(...result.response.messages);
    }
    expect(sent.at(-1)).toMatch(/"type":"item_reference","id":"msg_/);
    expect(sent.some((body) => body.includes('"call_id":"call_chain_1"'))).toBe(true);
    expect(sent.at(-1)).not.toContain('previous_response_id');

    // Each upstream request carries the whole conversation in order: the one before it, its
    // answer, then the new items.
    const upstreamInputs = generationRequests().map(
      (request) => (request.body as { input: unknown[] }).input,
    );
    expect(upstreamInputs).toHaveLength(turns + 1);
    for (let index = 1; index < upstreamInputs.length; index += 1) {
      const before = upstreamInputs[index - 1] as unknown[];
      const current = upstreamInputs[index] as unknown[];
      expect(current.slice(0, before.length)).toEqual(before);
      expect(current.length).toBeGreaterThan(before.length + 1);
    }
    const last = generationRequests().at(-1)?.rawBody ?? '';
    expect(last).not.toContain('item_reference');
    const markers = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const number = String(turn).padStart(2, '0');
      markers.push(`Question ${number}?`);
      if (turn === toolTurn) markers.push('call_chain_1', '4C');
      if (turn < turns - 1) markers.push(`Answer ${number}.`);
    }
    const positions = markers.map((marker) => last.indexOf(marker));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));

    // One chain, each row linked to the one before and holding only its own items.
    expect(ids).toHaveLength(turns + 1);
    const rows = await Promise.all(
      ids.map((id) => bed.gateway.store.responses.findResponse(id, bed.accountId, Date.now())),
    );
    expect(rows.map((row) => row?.previousResponseId ?? null)).toEqual([null, ...ids.slice(0, -1)]);
    const ownItems = rows.map((row) => (row?.input ?? []).map((item) => item.type ?? item.role));
    expect(ownItems).toEqual(
      ids.map((_, index) => (index === toolTurn + 1 ? ['function_call_output'] : ['user'])),
    );
    const rowBytes = rows.map(
      (row) => JSON.stringify(row?.input).length + JSON.stringify(row?.output).length,
    );
    const first = rowBytes[0] ?? 0;
    expect(first).toBeGreaterThan(0);
    for (const bytes of rowBytes) expect(Math.abs(bytes - first)).toBeLessThan(first / 2);
    const chain = await bed.gateway.store.responses.findResponseChain(
      ids.at(-1) as string,
      bed.accountId,
      Date.now(),
      1_000,
    );
    expect(chain?.map((response) => response.id)).toEqual(ids);
  });

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
