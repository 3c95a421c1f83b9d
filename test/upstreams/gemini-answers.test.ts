import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeGeminiRetryDelaySeconds } from '../fake-upstream/wire-gemini.ts';
import { surfacePaths, type SurfaceName } from '../generation/surface-clients.ts';
import { startUpstreamTestBed, testModel, type UpstreamTestBed } from '../support/test-gateway.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const key = 'gemini-answers-key-41c0';
const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** What is particular to Gemini's answers: its throttling, its filters, its signatures, its count. */
describe('gemini answers', () => {
  let bed: UpstreamTestBed;
  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: { google: { kind: 'gemini', apiKeyEnv: 'GEMINI_ANSWERS_KEY' } },
      models: [
        testModel('gemini-model', 'google', {
          deployments: [{ provider: 'google', upstreamModel: 'gemini-2.5-flash' }],
        }),
        testModel('gemini3-model', 'google', {
          deployments: [{ provider: 'google', upstreamModel: 'gemini-3-pro-preview' }],
        }),
      ],
      env: { GEMINI_ANSWERS_KEY: key },
      upstreamKey: key,
    });
  });
  afterAll(() => bed.close());
  beforeEach(() => bed.fake.reset());

  const send = (surface: SurfaceName, body: Record<string, unknown>, url = surfacePaths[surface]) =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers:
        surface === 'messages'
          ? { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' }
          : { authorization: `Bearer ${bed.token}` },
      payload: body,
    });
  const ask = (surface: SurfaceName, model = 'gemini-model'): Json =>
    surface === 'messages'
      ? { model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }
      : surface === 'chat'
        ? { model, messages: [{ role: 'user', content: 'hi' }] }
        : { model, input: 'hi' };

  it('cools the key down for the RetryInfo wait of a RESOURCE_EXHAUSTED answer', async () => {
    bed.fake.enqueue({ status: 429 });
    const response = await send('chat', ask('chat'));
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe(String(fakeGeminiRetryDelaySeconds));
    const target = bed.gateway.catalog.get('gemini-model')?.targets[0];
    const health = bed.gateway.router.health(target?.id ?? '');
    expect(health.coolUntil - bed.gateway.router.now()).toBeGreaterThan(
      (fakeGeminiRetryDelaySeconds - 1) * 1000,
    );
    // Still cooling: the gateway answers itself, without calling Gemini.
    const again = await send('chat', ask('chat'));
    expect(again.statusCode).toBe(429);
    expect(bed.fake.requests).toHaveLength(1);
  });

  it('maps a safety stop to each dialect’s own content-filter word, not an error', async () => {
    const expected = {
      messages: (json: Json) => expect(json.stop_reason).toBe('refusal'),
      chat: (json: Json) => expect(json.choices[0].finish_reason).toBe('content_filter'),
      responses: (json: Json) =>
        expect(json.incomplete_details).toEqual({ reason: 'content_filter' }),
    };
    for (const surface of ['messages', 'chat', 'responses'] as const) {
      bed.fake.enqueue({
        output: [{ text: 'Here is how' }],
        finishReason: 'content_filter',
        usage: { input: 5, output: 3 },
      });
      const response = await send(surface, { ...ask(surface), model: 'gemini3-model' });
      expect(response.statusCode, response.body).toBe(200);
      expected[surface](response.json());
    }
  });

  it.each([
    ['messages', { metadata: { user_id: 'u-1' } }, 'metadata.user_id'],
    [
      'chat',
      {
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        parallel_tool_calls: false,
      },
      'parallel_tool_calls',
    ],
    [
      'responses',
      {
        tools: [
          {
            type: 'function',
            name: 'f',
            parameters: { type: 'object', properties: { a: { type: 'string', pattern: '^x' } } },
          },
        ],
      },
      'tools[0]',
    ],
    ['messages', { stop_sequences: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'stop_sequences'],
    [
      'chat',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
      'messages[0].content[1]',
    ],
    ['responses', { reasoning: { effort: 'xhigh' } }, 'reasoning.effort'],
  ] as const)(
    'refuses from a %s client what Gemini cannot carry, naming its field',
    async (surface, extra, path) => {
      const response = await send(surface, { ...ask(surface), ...extra });
      expect(response.statusCode, response.body).toBe(400);
      const issues = (response.json().error.details.issues as Json[]).map((issue) => issue.path);
      expect(issues).toContain(path);
      expect(bed.fake.requests).toHaveLength(0);
    },
  );

  it('hands a Gemini 3 tool loop its signature back from a message-style client', async () => {
    bed.fake.enqueue({
      output: [
        { reasoning: { text: 'Look it up.' } },
        { toolCall: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
      usage: { input: 20, output: 30 },
    });
    const opening = {
      model: 'gemini3-model',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    };
    const first = await send('messages', opening);
    expect(first.statusCode, first.body).toBe(200);
    const blocks = first.json().content as Json[];
    const call = blocks.find((block) => block.type === 'tool_use');
    expect(call?.name).toBe('get_weather');
    bed.fake.enqueue({ output: [{ text: 'Sunny.' }], usage: { input: 60, output: 3 } });
    const second = await send('messages', {
      ...opening,
      messages: [
        ...opening.messages,
        { role: 'assistant', content: blocks },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call?.id, content: 'sunny' }],
        },
      ],
    });
    // The fake refuses a Gemini 3 tool loop whose call lost its signature, or one moved.
    expect(second.statusCode, second.body).toBe(200);
    const sent = bed.fake.requests.at(-1)?.body as Json;
    const modelTurn = sent.contents[1];
    // The unsigned thought summary is left out (Gemini reads none back); the signed call is exact.
    expect(modelTurn.parts).toHaveLength(1);
    expect(modelTurn.parts[0].functionCall).toEqual({
      name: 'get_weather',
      args: { city: 'Paris' },
    });
    expect(typeof modelTurn.parts[0].thoughtSignature).toBe('string');
  });

  it('replays a streamed answer’s signature to Gemini 3 from a responses client', async () => {
    bed.fake.enqueue({
      output: [{ reasoning: { text: 'Think.' } }, { text: 'Sunny all week.' }],
      usage: { input: 20, output: 30 },
    });
    const opening = {
      model: 'gemini3-model',
      reasoning: { effort: 'medium' },
      include: ['reasoning.encrypted_content'],
      stream: true,
      input: [{ role: 'user', content: 'Weather this week?' }],
    };
    const first = await send('responses', opening);
    expect(first.statusCode, first.body).toBe(200);
    const completed = first.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Json)
      .find((event) => event.type === 'response.completed');
    const output = (completed?.response.output as Json[]).map(({ status: _s, ...item }) => item);
    expect(output.some((item) => String(item.encrypted_content).startsWith('sy1.google.'))).toBe(
      true,
    );
    bed.fake.enqueue({ output: [{ text: 'And next week too.' }], usage: { input: 40, output: 5 } });
    const second = await send('responses', {
      ...opening,
      stream: false,
      input: [...opening.input, ...output, { role: 'user', content: 'And next week?' }],
    });
    expect(second.statusCode, second.body).toBe(200);
    const modelTurn = (bed.fake.requests.at(-1)?.body as Json).contents[1];
    expect(modelTurn.parts.at(-1)).toEqual({
      text: '',
      thoughtSignature: expect.any(String) as unknown,
    });
    expect(modelTurn.parts.map((part: Json) => part.text).join('')).toBe('Sunny all week.');
  });

  it('counts a prompt with Gemini’s countTokens, system and tools included', async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 77 });
    const response = await send(
      'messages',
      {
        model: 'gemini-model',
        system: 'Be brief.',
        tools: [weather],
        messages: [{ role: 'user', content: 'hi' }],
      },
      '/v1/messages/count_tokens',
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ input_tokens: 77 });
    expect(response.headers['x-switchyard-token-count-source']).toBe('upstream');
    const request = bed.fake.requests.at(-1);
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(request?.headers['x-goog-api-key']).toBe(key);
    const counted = (request?.body as Json).generateContentRequest;
    expect(counted.model).toBe('models/gemini-2.5-flash');
    expect(counted.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(counted.tools[0].functionDeclarations[0].name).toBe('get_weather');
  });
});
