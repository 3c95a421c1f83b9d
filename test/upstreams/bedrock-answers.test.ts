import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toPriceTable, priceUsage } from '../../src/billing/price-table.ts';
import { usageFromParts } from '../../src/canonical/usage.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import type { FakeUsage } from '../fake-upstream/fake-upstream-server.ts';
import {
  buildRequest,
  readResponse,
  surfacePaths,
  type Conversation,
  type SurfaceName,
} from '../generation/surface-clients.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import { startUpstreamTestBed, testModel, type UpstreamTestBed } from '../support/test-gateway.ts';

const surfaces: SurfaceName[] = ['messages', 'chat', 'responses'];
const credentials = { accessKeyId: 'AKIDBEDROCKTEST', secretAccessKey: 'bedrock-test-secret' };
const claudeId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const novaId = 'amazon.nova-pro-v1:0';
const deployments = [
  { model: 'claude-on-bedrock', upstream: claudeId, dialect: 'anthropic' },
  { model: 'nova-on-bedrock', upstream: novaId, dialect: 'converse' },
] as const;
const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** What the fake's usage costs at the models' prices, to the micro-credit. */
function expectedCharge(usage: Required<Omit<FakeUsage, 'reasoning'>>): number {
  return priceUsage(
    usageFromParts({
      noCache: usage.input,
      cacheRead: usage.cacheRead,
      cacheWrite5m: usage.cacheWrite5m,
      cacheWrite1h: usage.cacheWrite1h,
      output: usage.output,
    }),
    toPriceTable(pricing),
  );
}

let bed: UpstreamTestBed;

beforeAll(async () => {
  bed = await startUpstreamTestBed({
    fake: { bedrock: { credentials: [credentials] }, promptCache: true },
    providers: {
      bedrock: { kind: 'bedrock', region: 'us-east-1' },
      'bedrock-key': { kind: 'bedrock', region: 'eu-west-1', apiKeyEnv: 'BEDROCK_TEST_API_KEY' },
    },
    models: [
      ...deployments.map((deployment) =>
        testModel(deployment.model, 'bedrock', {
          deployments: [{ provider: 'bedrock', upstreamModel: deployment.upstream }],
          pricing,
        }),
      ),
      testModel('claude-by-api-key', 'bedrock-key', {
        deployments: [{ provider: 'bedrock-key', upstreamModel: `us.${claudeId}` }],
        pricing,
      }),
    ],
    env: {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      BEDROCK_TEST_API_KEY: 'bedrock-api-key-for-tests',
    },
  });
});
afterAll(() => bed.close());
beforeEach(() => bed.fake.reset());

function send(
  surface: SurfaceName,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return bed.gateway.app.inject({
    method: 'POST',
    url: surfacePaths[surface],
    headers: {
      ...(surface === 'messages'
        ? { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' }
        : { authorization: `Bearer ${bed.token}` }),
      ...headers,
    },
    payload: body,
  });
}

/** The charge of the request that got `response`, once its settlement is written. */
async function chargeOf(response: { headers: Record<string, unknown> }): Promise<number> {
  const requestId = response.headers['request-id'];
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const records = await bed.gateway.store.usage.listUsage(bed.accountId, 20);
    const record = records.find((candidate) => candidate.requestId === requestId);
    if (record !== undefined) return record.cost;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no usage record for ${String(requestId)}`);
}

for (const surface of surfaces) {
  for (const deployment of deployments) {
    describe(`${surface} → bedrock ${deployment.dialect}`, () => {
      const conversation = (overrides: Partial<Conversation> = {}): Conversation => ({
        model: deployment.model,
        stream: false,
        user: 'What is the weather in Paris?',
        ...overrides,
      });

      for (const stream of [false, true]) {
        it(`answers text (${stream ? 'stream' : 'JSON'}), signed with SigV4, charged exactly`, async () => {
          const usage = { input: 40, cacheRead: 60, cacheWrite5m: 20, cacheWrite1h: 10, output: 7 };
          bed.fake.enqueue({ output: [{ text: 'Sunny, 21 degrees.' }], usage });
          const response = await send(surface, buildRequest(surface, conversation({ stream })));
          expect(response.statusCode, response.body).toBe(200);
          const view = readResponse(surface, stream, response.body);
          expect(view.errorMessage).toBeUndefined();
          expect(view.text).toBe('Sunny, 21 degrees.');
          expect(view.finished).toBe(true);
          expect(view.reportedOutput).toBe(7);
          const [call] = bed.fake.requests;
          const operation =
            deployment.dialect === 'anthropic'
              ? stream
                ? 'invoke-with-response-stream'
                : 'invoke'
              : stream
                ? 'converse-stream'
                : 'converse';
          expect(call?.path).toBe(`/model/${encodeURIComponent(deployment.upstream)}/${operation}`);
          expect(call?.key).toBe(credentials.accessKeyId);
          expect(await chargeOf(response)).toBe(expectedCharge(usage));
        });
      }

      it('carries a tool call out and its result back under the same id', async () => {
        bed.fake.enqueue({
          output: [
            {
              toolCall: { id: 'tooluse_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        });
        const first = await send(
          surface,
          buildRequest(surface, conversation({ tools: [weatherTool] })),
        );
        expect(first.statusCode, first.body).toBe(200);
        expect(readResponse(surface, false, first.body).toolCalls).toEqual([
          { id: 'tooluse_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ]);
        const second = await send(
          surface,
          buildRequest(
            surface,
            conversation({
              tools: [weatherTool],
              toolRoundTrip: {
                id: 'tooluse_paris',
                name: 'get_weather',
                arguments: '{"city":"Paris"}',
                result: '21C and sunny',
              },
            }),
          ),
        );
        expect(second.statusCode, second.body).toBe(200);
        const sent = JSON.stringify(bed.fake.requests[1]?.body);
        expect(sent).toContain('tooluse_paris');
        expect(sent).toContain('21C and sunny');
      });
    });
  }
}

describe('messages → Claude on Bedrock (same-dialect relay)', () => {
  const thinking = {
    reasoning: {
      text: 'The user wants the weather; call the tool.',
      signature: 'RXF3QkNrZ0lBUkFCR0FJ+/==',
    },
  };

  it('relays thinking and its signature byte for byte, and sends it back on the next turn', async () => {
    bed.fake.enqueue({
      output: [
        thinking,
        { toolCall: { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    });
    const body = {
      model: 'claude-on-bedrock',
      max_tokens: 2048,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: weatherTool.schema }],
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    };
    const first = await send('messages', body, {
      'anthropic-beta': 'interleaved-thinking-2025-05-14, fine-grained-tool-streaming-2025-05-14',
    });
    expect(first.statusCode, first.body).toBe(200);
    const events = parseServerSentEvents(first.body).map((event) => JSON.parse(event.data));
    const signature = events.find((event) => event.delta?.type === 'signature_delta')?.delta
      .signature;
    expect(signature).toBe(thinking.reasoning.signature);
    const sent = bed.fake.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14'],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect(sent).not.toHaveProperty('model');
    expect(sent).not.toHaveProperty('stream');

    const replayed = {
      ...body,
      messages: [
        ...body.messages,
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: thinking.reasoning.text, signature },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '12C' }],
        },
      ],
    };
    const second = await send('messages', replayed);
    expect(second.statusCode, second.body).toBe(200);
    expect(bed.fake.requests[1]?.rawBody).toContain(
      `"signature":"${thinking.reasoning.signature}"`,
    );
  });

  it('reports and charges cache writes and reads of a marked prompt exactly', async () => {
    const body = {
      model: 'claude-on-bedrock',
      max_tokens: 100,
      system: [
        {
          type: 'text',
          text: 'You answer weather questions. '.repeat(60),
          cache_control: { type: 'ephemeral', ttl: '1h' },
        },
      ],
      messages: [{ role: 'user', content: 'Paris?' }],
    };
    const first = await send('messages', body);
    expect(first.statusCode, first.body).toBe(200);
    const written = JSON.parse(first.body).usage;
    expect(written.cache_creation_input_tokens).toBeGreaterThan(0);
    // The system prompt's one-hour marker, and the gateway's own five-minute one at the end
    // (prompt cache `auto`, docs/api.md).
    const { ephemeral_1h_input_tokens: oneHour, ephemeral_5m_input_tokens: fiveMinutes } =
      written.cache_creation;
    expect(oneHour).toBeGreaterThan(0);
    expect(oneHour + fiveMinutes).toBe(written.cache_creation_input_tokens);
    expect(await chargeOf(first)).toBe(
      expectedCharge({
        input: written.input_tokens,
        cacheRead: 0,
        cacheWrite5m: fiveMinutes,
        cacheWrite1h: oneHour,
        output: written.output_tokens,
      }),
    );
    const second = await send('messages', body);
    const read = JSON.parse(second.body).usage;
    expect(read.cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
    expect(await chargeOf(second)).toBe(
      expectedCharge({
        input: read.input_tokens,
        cacheRead: read.cache_read_input_tokens,
        cacheWrite5m: 0,
        cacheWrite1h: 0,
        output: read.output_tokens,
      }),
    );
  });

  it('ends a relayed stream with an Anthropic error event when Bedrock throttles mid-stream', async () => {
    bed.fake.enqueue({
      output: [{ text: 'A long answer that is cut.' }],
      midStreamError: { afterEvents: 4, type: 'rate_limit_error', message: 'Too many tokens' },
    });
    const response = await send('messages', {
      model: 'claude-on-bedrock',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const events = parseServerSentEvents(response.body);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(JSON.parse(last?.data ?? '{}').error).toMatchObject({ type: 'rate_limit_error' });
  });

  it('sends a Bedrock API key as a Bearer token instead of signing', async () => {
    const response = await send('messages', {
      model: 'claude-by-api-key',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const [call] = bed.fake.requests;
    expect(call?.headers.authorization).toBe('Bearer bedrock-api-key-for-tests');
    expect(call?.headers['x-amz-date']).toBeUndefined();
    expect(call?.path).toBe(`/model/${encodeURIComponent(`us.${claudeId}`)}/invoke`);
  });

  it('counts tokens with Bedrock CountTokens over the InvokeModel body', async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 1234 });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' },
      payload: { model: 'claude-on-bedrock', messages: [{ role: 'user', content: 'count me' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ input_tokens: 1234 });
    const [call] = bed.fake.requests;
    expect(call?.path).toBe(`/model/${encodeURIComponent(claudeId)}/count-tokens`);
    const invoked = (call?.body as { input: { invokeModel: { body: string } } }).input.invokeModel
      .body;
    const invokeBody = JSON.parse(Buffer.from(invoked, 'base64').toString('utf8'));
    expect(invokeBody).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(invokeBody).not.toHaveProperty('model');
  });
});

describe('responses and chat → Claude on Bedrock, thinking across turns', () => {
  const signature = 'U2lnbmVkQnlCZWRyb2NrQ2xhdWRl+/==';
  const toolCall = { id: 'toolu_bdrk_1', name: 'get_weather', arguments: '{"city":"Oslo"}' };

  it('responses: the reasoning item carries the signature back into the next invoke body', async () => {
    bed.fake.enqueue({
      output: [{ reasoning: { text: 'Need the tool.', signature } }, { toolCall }],
    });
    const tools = [{ type: 'function', name: 'get_weather', parameters: weatherTool.schema }];
    const input = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await send('responses', {
      model: 'claude-on-bedrock',
      input,
      tools,
      reasoning: { effort: 'low' },
      include: ['reasoning.encrypted_content'],
    });
    expect(first.statusCode, first.body).toBe(200);
    const output = JSON.parse(first.body).output as Array<Record<string, unknown>>;
    const second = await send('responses', {
      model: 'claude-on-bedrock',
      input: [
        ...input,
        ...output,
        { type: 'function_call_output', call_id: toolCall.id, output: '12C' },
      ],
      tools,
      reasoning: { effort: 'low' },
      include: ['reasoning.encrypted_content'],
    });
    expect(second.statusCode, second.body).toBe(200);
    const sent = bed.fake.requests[1]?.body as { messages: Array<{ content: unknown[] }> };
    expect(sent.messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Need the tool.',
      signature,
    });
  });

  it('chat: a tool loop with replayed reasoning_content reaches Bedrock in the Messages shape', async () => {
    bed.fake.enqueue({
      output: [{ reasoning: { text: 'Need the tool.', signature } }, { toolCall }],
    });
    const first = await send('chat', {
      model: 'claude-on-bedrock',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.schema } },
      ],
    });
    expect(first.statusCode, first.body).toBe(200);
    const message = JSON.parse(first.body).choices[0].message;
    expect(message.tool_calls[0].id).toBe(toolCall.id);
    const sent = bed.fake.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(sent).not.toHaveProperty('model');
  });
});

describe('Bedrock failures', () => {
  it('cools a throttled target down: the next call is refused without reaching Bedrock', async () => {
    bed.fake.behaveForKey(credentials.accessKeyId, { status: 429 });
    const body = {
      model: 'nova-on-bedrock',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const first = await send('messages', body);
    expect(first.statusCode).toBe(429);
    expect(JSON.parse(first.body).error.type).toBe('rate_limit_error');
    const second = await send('messages', body);
    expect(second.statusCode).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(bed.fake.requests).toHaveLength(1);
  });

  it('refuses a field Converse cannot carry with 400 naming the client field', async () => {
    const response = await send('messages', {
      model: 'nova-on-bedrock',
      max_tokens: 50,
      top_k: 40,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.statusCode).toBe(400);
    const error = JSON.parse(response.body).error;
    expect(error.message).toContain('top_k');
    expect(bed.fake.requests).toHaveLength(0);
  });

  it("takes a model the account has no access to for that deployment's fault, not the key's", async () => {
    bed.fake.enqueue({
      status: 403,
      errorMessage: "You don't have access to the model with the specified model ID.",
    });
    const body = (model: string) => ({
      model,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const refused = await send('messages', body('nova-on-bedrock'));
    expect(refused.statusCode).toBe(502);
    // The same AWS credentials still serve the provider's other models.
    const served = await send('messages', body('claude-on-bedrock'));
    expect(served.statusCode, served.body).toBe(200);
    expect(bed.fake.requests).toHaveLength(2);
  });

  it("answers a model's own failure (424 ModelErrorException) as the upstream's fault", async () => {
    bed.fake.enqueue({ status: 424 });
    const response = await send(
      'responses',
      buildRequest('responses', { model: 'nova-on-bedrock', stream: false, user: 'hi' }),
    );
    expect(response.statusCode).toBe(502);
  });

  it('maps a Bedrock validation error to a 400 with its message', async () => {
    bed.fake.enqueue({
      status: 400,
      errorMessage: 'The model returned the following errors: bad input',
    });
    const response = await send(
      'chat',
      buildRequest('chat', { model: 'nova-on-bedrock', stream: false, user: 'hi' }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('bad input');
  });
});

describe('count_tokens → a Converse model', () => {
  it('counts with CountTokens over the Converse prompt, refusing what Converse cannot carry', async () => {
    bed.fake.enqueueTokenCount({ inputTokens: 77 });
    const count = (payload: Record<string, unknown>) =>
      bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/messages/count_tokens',
        headers: { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' },
        payload: { model: 'nova-on-bedrock', ...payload },
      });
    const response = await count({
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ input_tokens: 77 });
    expect(bed.fake.requests[0]?.body).toEqual({
      input: {
        converse: {
          messages: [{ role: 'user', content: [{ text: 'hi' }] }],
          system: [{ text: 'Be brief.' }],
        },
      },
    });
    const refused = await count({
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
        },
      ],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('messages[0].content[0]');
  });
});

describe('bedrock configuration', () => {
  const config = (provider: Record<string, unknown>) =>
    parseConfig({
      dataDir: '/tmp/switchyard-bedrock-config',
      providers: { aws: { kind: 'bedrock', ...provider } },
      models: [
        testModel('m', 'aws', { deployments: [{ provider: 'aws', upstreamModel: claudeId }] }),
      ],
    });

  it("defaults the endpoint to the region's Bedrock Runtime", () => {
    expect(config({ region: 'eu-west-1' }).providers.aws?.baseUrl).toBe(
      'https://bedrock-runtime.eu-west-1.amazonaws.com',
    );
    expect(
      config({ region: 'us-east-1', baseUrl: 'https://vpce-1.example.com' }).providers.aws?.baseUrl,
    ).toBe('https://vpce-1.example.com');
  });

  it('refuses a baseUrl with a path, and a project or apiVersion', () => {
    expect(() => config({ region: 'us-east-1', baseUrl: 'https://example.com/bedrock' })).toThrow(
      /providers\.aws\.baseUrl: the service's origin only/,
    );
    expect(() => config({ region: 'us-east-1', project: 'p' })).toThrow(/providers\.aws\.project/);
    expect(() => config({ region: 'us-east-1', apiVersion: '1' })).toThrow(
      /providers\.aws\.apiVersion/,
    );
  });
});

describe('a bedrock provider without AWS credentials', () => {
  it('fails its attempt like an unreachable upstream, and the next deployment answers', async () => {
    const uncredentialed = await startUpstreamTestBed({
      providers: {
        'no-credentials': { kind: 'bedrock', region: 'us-east-1' },
        'with-key': { kind: 'bedrock', region: 'us-east-1', apiKeyEnv: 'BEDROCK_FALLBACK_KEY' },
      },
      models: [
        testModel('claude-two-ways', 'no-credentials', {
          deployments: [
            { provider: 'no-credentials', upstreamModel: claudeId, priority: 0 },
            { provider: 'with-key', upstreamModel: claudeId, priority: 1 },
          ],
        }),
      ],
      env: {
        // Empty variables and a profile that exists nowhere: the chain finds nothing.
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_PROFILE: 'switchyard-no-such-profile',
        BEDROCK_FALLBACK_KEY: 'bedrock-fallback-key',
      },
    });
    try {
      const response = await uncredentialed.gateway.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { 'x-api-key': uncredentialed.token, 'anthropic-version': '2023-06-01' },
        payload: {
          model: 'claude-two-ways',
          max_tokens: 20,
          messages: [{ role: 'user', content: 'hi' }],
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-switchyard-deployment']).toContain('with-key/');
      expect(uncredentialed.fake.requests).toHaveLength(1);
      expect(uncredentialed.fake.requests[0]?.headers.authorization).toBe(
        'Bearer bedrock-fallback-key',
      );
      const logged = uncredentialed.gateway.logs.join('\n');
      expect(logged).toContain('no AWS credentials to sign the Bedrock request with');
      expect(logged).not.toContain('bedrock-fallback-key');
    } finally {
      await uncredentialed.close();
    }
  }, 20_000);
});
