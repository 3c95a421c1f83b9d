import OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sdkModels, startSdkTestBed, weatherSchema } from './sdk-test-setup.ts';
import { useTestBed } from '../support/use-test-bed.ts';

/**
 * docs/clients.md: a tool loop driven by the openai SDK's stream helpers replays their output as
 * the SDK returns it (`parsed_arguments: null`, `parsed: null`, `reasoning_content`), on the routes
 * where the gateway translates.
 */

const weatherCall = { id: 'call_helper_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };

const responsesTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: weatherSchema,
  strict: false,
};

const chatTool: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherSchema },
};

describe('openai SDK stream helpers replaying their own output', () => {
  const bed = useTestBed(startSdkTestBed);
  let client: OpenAI;

  beforeAll(() => {
    client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.token, maxRetries: 0 });
  });
  beforeEach(() => bed.fake.reset());

  const generationBodies = () =>
    bed.fake.requests
      .filter((request) => request.dialect !== undefined)
      .map((request) => request.rawBody);

  for (const model of [sdkModels.anthropic, sdkModels.chat]) {
    it(`responses.stream().finalResponse() output goes back as turn 2 (responses → ${model})`, async () => {
      bed.fake.enqueue(
        { output: [{ text: 'Checking.' }, { toolCall: weatherCall }] },
        { output: [{ text: 'Oslo: 4 degrees.' }] },
      );
      const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Oslo?' }];
      const first = await client.responses
        .stream({ model, tools: [responsesTool], input })
        .finalResponse();
      const call = first.output.find((item) => item.type === 'function_call');
      // The helper's additions are what the replay carries.
      expect(call).toMatchObject({ call_id: weatherCall.id, parsed_arguments: null });
      expect(first.output.find((item) => item.type === 'message')).toMatchObject({
        content: [{ type: 'output_text', parsed: null }],
      });

      input.push(...(first.output as ResponseInputItem[]), {
        type: 'function_call_output',
        call_id: weatherCall.id,
        output: '4C',
      });
      const second = await client.responses
        .stream({ model, tools: [responsesTool], input })
        .finalResponse();
      expect(second.output_text).toBe('Oslo: 4 degrees.');
      const [, replayed] = generationBodies();
      expect(replayed).toContain(weatherCall.id);
      expect(replayed).toContain('4C');
      expect(replayed).not.toContain('parsed');
    });
  }

  for (const model of [sdkModels.anthropic, sdkModels.responses]) {
    it(`chat.completions.stream().finalChatCompletion() goes back as turn 2 (chat → ${model})`, async () => {
      bed.fake.enqueue(
        { output: [{ toolCall: weatherCall }] },
        { output: [{ text: 'Oslo: 4 degrees.' }] },
      );
      const messages: ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Weather in Oslo?' },
      ];
      const first = await client.chat.completions
        .stream({ model, tools: [chatTool], messages })
        .finalChatCompletion();
      const message = first.choices[0]?.message;
      expect(message).toMatchObject({ parsed: null, refusal: null });
      expect(message?.tool_calls?.[0]).toMatchObject({ id: weatherCall.id });

      messages.push(message as ChatCompletionMessageParam, {
        role: 'tool',
        tool_call_id: weatherCall.id,
        content: '4C',
      });
      const second = await client.chat.completions
        .stream({ model, tools: [chatTool], messages })
        .finalChatCompletion();
      expect(second.choices[0]?.message.content).toBe('Oslo: 4 degrees.');
      const [, replayed] = generationBodies();
      expect(replayed).toContain(weatherCall.id);
      expect(replayed).toContain('4C');
    });

    it(`reasoning_content of a finished turn is replayed without a 400 (chat → ${model})`, async () => {
      bed.fake.enqueue(
        { output: [{ reasoning: { text: 'The user wants a capital.' } }, { text: 'Paris.' }] },
        { output: [{ text: 'Rome.' }] },
      );
      const messages: ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Capital of France?' },
      ];
      const first = await client.chat.completions.stream({ model, messages }).finalChatCompletion();
      const message = first.choices[0]?.message as unknown as Record<string, unknown>;
      // The helper keeps what the stream's reasoning deltas left in the message object.
      const reasoning = message.reasoning_content;
      expect(typeof reasoning === 'string' && reasoning !== '').toBe(true);

      messages.push(message as unknown as ChatCompletionMessageParam, {
        role: 'user',
        content: 'And of Italy?',
      });
      const second = await client.chat.completions
        .stream({ model, messages })
        .finalChatCompletion();
      expect(second.choices[0]?.message.content).toBe('Rome.');
      // The target leaves finished turns' reasoning out of the context: so does the gateway.
      const [, replayed] = generationBodies();
      expect(replayed).toContain('Paris.');
      expect(replayed).not.toContain(JSON.stringify(reasoning));
    });

    it(`reasoning_content inside the tool loop in progress is still refused (chat → ${model})`, async () => {
      const response = await bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${bed.token}` },
        payload: {
          model,
          tools: [chatTool],
          messages: [
            { role: 'user', content: 'Weather in Oslo?' },
            {
              role: 'assistant',
              content: null,
              reasoning_content: 'I should call the tool.',
              tool_calls: [
                {
                  id: weatherCall.id,
                  type: 'function',
                  function: { name: weatherCall.name, arguments: weatherCall.arguments },
                },
              ],
            },
            { role: 'tool', tool_call_id: weatherCall.id, content: '4C' },
          ],
        },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('unrepresentable_field');
      expect(bed.fake.requests).toHaveLength(0);
    });
  }
});
