import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { azurePromptFilteredBody } from '../fake-upstream/wire-azure-openai.ts';
import { readResponse, surfacePaths, type SurfaceName } from '../generation/surface-clients.ts';
import { startUpstreamTestBed, testModel, type UpstreamTestBed } from '../support/test-gateway.ts';

const key = 'azure-answers-key-77ab';

/** What is particular to Azure's answers: its content filter, its throttling, its settings. */
describe('azure-openai answers', () => {
  let bed: UpstreamTestBed;
  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: { azure: { kind: 'azure-openai', apiKeyEnv: 'AZURE_ANSWERS_KEY' } },
      models: [testModel('azure-model', 'azure')],
      env: { AZURE_ANSWERS_KEY: key },
      upstreamKey: key,
    });
  });
  afterAll(() => bed.close());
  beforeEach(() => bed.fake.reset());

  const send = (surface: SurfaceName, body: Record<string, unknown>) =>
    bed.gateway.app.inject({
      method: 'POST',
      url: surfacePaths[surface],
      headers:
        surface === 'messages'
          ? { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' }
          : { authorization: `Bearer ${bed.token}` },
      payload: body,
    });
  const ask = (surface: SurfaceName, stream = false): Record<string, unknown> =>
    surface === 'messages'
      ? {
          model: 'azure-model',
          max_tokens: 100,
          stream,
          messages: [{ role: 'user', content: 'hi' }],
        }
      : surface === 'chat'
        ? { model: 'azure-model', stream, messages: [{ role: 'user', content: 'hi' }] }
        : { model: 'azure-model', stream, input: 'hi' };

  it.each(['messages', 'chat', 'responses'] as const)(
    'tells a %s client its prompt was refused by the content filter, charges nothing and tries no other target',
    async (surface) => {
      const before = await bed.gateway.store.ledger.getBalance(bed.accountId);
      bed.fake.enqueue({ status: 400, errorBody: azurePromptFilteredBody });
      const response = await send(surface, ask(surface));
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toContain('content management policy');
      expect(bed.fake.requests).toHaveLength(1);
      expect(await bed.gateway.store.ledger.getBalance(bed.accountId)).toEqual(before);
    },
  );

  it('maps a completion the content filter stopped to each dialect’s own stop reason', async () => {
    type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
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
      const response = await send(surface, ask(surface));
      expect(response.statusCode, response.body).toBe(200);
      expected[surface](response.json());
    }
  });

  it('relays a chat stream that opens with the prompt filter chunk Azure sends before any choice', async () => {
    bed.fake.enqueue({ output: [{ text: 'Streamed.' }], usage: { input: 5, output: 2 } });
    const response = await send('chat', {
      ...ask('chat', true),
      stream_options: { include_usage: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('prompt_filter_results');
    const view = readResponse('chat', true, response.body);
    expect(view.text).toBe('Streamed.');
    expect(view.reportedOutput).toBe(2);
  });

  it('cools the key down for the wait Azure gives in retry-after-ms', async () => {
    bed.fake.enqueue({ status: 429, headers: { 'retry-after-ms': '4500' } });
    const response = await send('chat', ask('chat'));
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('5');
    const target = bed.gateway.catalog.get('azure-model')?.targets[0];
    const health = bed.gateway.router.health(target?.id ?? '');
    expect(health.coolUntil - bed.gateway.router.now()).toBeGreaterThan(4000);
    // Still cooling: the gateway answers itself, without calling Azure.
    const again = await send('chat', ask('chat'));
    expect(again.statusCode).toBe(429);
    expect(bed.fake.requests).toHaveLength(1);
  });
});

describe('azure-openai settings', () => {
  const config = (provider: Record<string, unknown>) => ({
    providers: { azure: { kind: 'azure-openai', apiKeyEnv: 'K', ...provider } },
    models: [testModel('m', 'azure')],
  });

  it('takes the resource origin, an api-version and a key scheme', () => {
    const parsed = parseConfig(
      config({ baseUrl: 'https://my-resource.openai.azure.com', apiVersion: '2025-04-01-preview' }),
    );
    expect(parsed.providers.azure?.apiVersion).toBe('2025-04-01-preview');
  });

  it('refuses a baseUrl with a path, naming the key', () => {
    expect(() =>
      parseConfig(config({ baseUrl: 'https://my-resource.openai.azure.com/openai/v1' })),
    ).toThrow(/providers\.azure\.baseUrl: the service's origin only/);
  });

  it('refuses settings of other kinds', () => {
    expect(() =>
      parseConfig(config({ baseUrl: 'https://r.openai.azure.com', region: 'eastus' })),
    ).toThrow(/providers\.azure\.region: only a bedrock or vertex provider has one/);
    expect(() =>
      parseConfig({
        providers: {
          openai: { kind: 'openai-chat', baseUrl: 'https://api.openai.com', apiVersion: 'x' },
        },
        models: [testModel('m', 'openai')],
      }),
    ).toThrow(/providers\.openai\.apiVersion: only an azure-openai provider has one/);
  });
});
