import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeEach, describe, expect, it } from 'vitest';
import { testModel } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

// Words the two encodings split differently, so the chosen one is visible in the count.
const question = 'Wie viele Tokens hat diese Frage? 你好，世界';
const readTool = {
  name: 'Read',
  description: 'Reads a file.',
  input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
};

/** OpenAI's chat framing: 3 per message plus its role, 3 priming the reply (decisions/0031). */
function framed(count: (text: string) => number, texts: string[]): number {
  return 3 + texts.reduce((sum, text) => sum + 3 + count('user') + count(text), 0);
}

/**
 * docs/decisions/0031: `count_tokens` towards an OpenAI-style upstream without a counting endpoint
 * counts with the model family's tokenizer, or asks the upstream's tokenize route; otherwise 400.
 * The answer says which in `x-switchyard-token-count-source`.
 */
describe('POST /v1/messages/count_tokens by counting source', () => {
  const bed = useUpstreamTestBed({
    providers: {
      chat: { kind: 'openai-chat' },
      vllm: { kind: 'openai-chat', tokenizePath: '/tokenize' },
      countingChat: { kind: 'openai-chat', countInputTokens: true },
    },
    models: [
      testModel('gpt-4o-route', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'gpt-4o-2024-08-06' }],
      }),
      testModel('gpt-4-route', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'gpt-4-0613' }],
      }),
      testModel('configured-route', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'house-model', tokenizer: 'cl100k_base' }],
      }),
      testModel('switched-off-route', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'gpt-4o', tokenizer: 'none' }],
      }),
      testModel('llama-route', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'meta-llama/Llama-3.1-8B-Instruct' }],
      }),
      testModel('vllm-route', 'vllm', {
        deployments: [{ provider: 'vllm', upstreamModel: 'Qwen/Qwen3-8B' }],
      }),
      testModel('counting-route', 'countingChat', {
        deployments: [{ provider: 'countingChat', upstreamModel: 'gpt-4o' }],
      }),
    ],
    credits: 100_000_000,
  });
  beforeEach(() => bed.fake.reset());

  const count = (model: string, extra: Record<string, unknown> = {}) =>
    bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: { 'x-api-key': bed.token },
      payload: { model, messages: [{ role: 'user', content: question }], ...extra },
    });

  it('counts exactly with o200k_base for an OpenAI model of that family, without asking upstream', async () => {
    const response = await count('gpt-4o-route');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ input_tokens: framed(countO200k, [question]) });
    expect(response.headers['x-switchyard-token-count-source']).toBe('local:o200k_base');
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('counts with cl100k_base for gpt-4, and with the encoding the configuration names', async () => {
    const gpt4 = await count('gpt-4-route');
    expect(gpt4.json()).toEqual({ input_tokens: framed(countCl100k, [question]) });
    expect(gpt4.headers['x-switchyard-token-count-source']).toBe('local:cl100k_base');
    expect(framed(countCl100k, [question])).not.toBe(framed(countO200k, [question]));
    const configured = await count('configured-route');
    expect(configured.headers['x-switchyard-token-count-source']).toBe('local:cl100k_base');
  });

  it('counts the system prompt, tool calls, results and tool definitions', async () => {
    const call = JSON.stringify({ file_path: 'notes.txt' });
    const response = await count('gpt-4o-route', {
      system: 'Be brief.',
      tools: [readTool],
      messages: [
        { role: 'user', content: question },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'notes.txt' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'It says hello.' }],
        },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const expected =
      3 +
      (3 + countO200k('system') + countO200k('Be brief.')) +
      (3 + countO200k('user') + countO200k(question)) +
      (3 + countO200k('assistant') + countO200k('Read') + countO200k(call)) +
      (3 + countO200k('user') + 3 + countO200k('It says hello.')) +
      countO200k('Read') +
      countO200k('Reads a file.') +
      countO200k(JSON.stringify(readTool.input_schema));
    expect(response.json()).toEqual({ input_tokens: expected });
  });

  it("asks the upstream's tokenize route with the chat messages the model would see", async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 31 });
    const response = await count('vllm-route', { tools: [readTool] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ input_tokens: 31 });
    expect(response.headers['x-switchyard-token-count-source']).toBe('upstream-tokenize');
    const [tokenize] = bed.fake.requests;
    expect(tokenize?.path).toBe('/tokenize');
    expect(tokenize?.body).toEqual({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: question }],
      add_generation_prompt: true,
      tools: [
        {
          type: 'function',
          function: {
            name: 'Read',
            description: 'Reads a file.',
            parameters: readTool.input_schema,
          },
        },
      ],
    });
  });

  it('maps a failing tokenize route to an upstream error, never a made-up count', async () => {
    bed.fake.enqueueTokenCount({ status: 500 });
    const response = await count('vllm-route');
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(response.json().error).toBeDefined();
  });

  it("prefers the upstream's own counting endpoint where it has one", async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 44 });
    const response = await count('counting-route');
    expect(response.json()).toEqual({ input_tokens: 44 });
    expect(response.headers['x-switchyard-token-count-source']).toBe('upstream');
    expect(bed.fake.requests.map((request) => request.path)).toEqual([
      '/v1/responses/input_tokens',
    ]);
  });

  it.each([
    ['a model of another family', 'llama-route'],
    ['a deployment whose tokenizer is switched off', 'switched-off-route'],
  ])('keeps the 400 for %s', async (_name, model) => {
    const response = await count(model);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/no counting endpoint and no known tokenizer/);
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('refuses what the route cannot represent rather than count it', async () => {
    const response = await count('gpt-4o-route', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
          ],
        },
      ],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.issues[0].path).toBe('messages[0].content[0]');
  });
});
