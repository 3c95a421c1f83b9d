import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

describe('GET /v1/models and /api/public/models', () => {
  let gateway: TestGateway;
  const ids = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5'];

  beforeAll(async () => {
    gateway = await startTestGateway({
      providers: { up: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9' } },
      models: ids.map((id) => testModel(id, 'up')),
    });
  });
  afterAll(async () => gateway.close());

  const get = async (url: string) => {
    const response = await gateway.app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json() };
  };

  it('pages forward with limit and after_id until has_more is false', async () => {
    const seen: string[] = [];
    let url = '/v1/models?limit=2';
    for (;;) {
      const { status, body } = await get(url);
      expect(status).toBe(200);
      seen.push(...body.data.map((model: { id: string }) => model.id));
      expect(body.first_id).toBe(body.data[0].id);
      expect(body.last_id).toBe(body.data.at(-1).id);
      if (!body.has_more) break;
      url = `/v1/models?limit=2&after_id=${body.last_id}`;
    }
    expect(seen).toEqual(ids);
  });

  it('pages backward with before_id', async () => {
    const { body } = await get('/v1/models?limit=2&before_id=m-4');
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(['m-2', 'm-3']);
    expect(body.has_more).toBe(true);
  });

  it('returns the whole catalog without limit, in a stable order, in both dialects’ fields', async () => {
    const first = await get('/v1/models');
    const second = await get('/v1/models');
    expect(first.body).toEqual(second.body);
    expect(first.body.object).toBe('list');
    expect(first.body.has_more).toBe(false);
    const model = first.body.data[0];
    expect(model).toMatchObject({ id: 'm-1', object: 'model', type: 'model', display_name: 'm-1' });
    // Extra fields of the model list that the Codex installer writes into Codex's configuration.
    expect(model).toMatchObject({ context_window: 200_000, max_output_tokens: 8_192 });
    expect(typeof model.created).toBe('number');
    expect(typeof model.created_at).toBe('string');
  });

  it('lists to a token with allowed models only those models, paged among themselves', async () => {
    const { token } = await gateway.createToken({ allowedModels: ['m-2', 'm-4', 'm-5'] });
    const list = async (url: string) => {
      const response = await gateway.app.inject({
        method: 'GET',
        url,
        headers: { 'x-api-key': token },
      });
      expect(response.statusCode).toBe(200);
      return response.json() as { data: Array<{ id: string }>; has_more: boolean };
    };
    expect((await list('/v1/models')).data.map((model) => model.id)).toEqual(['m-2', 'm-4', 'm-5']);
    const first = await list('/v1/models?limit=1&after_id=m-2');
    expect(first.data.map((model) => model.id)).toEqual(['m-4']);
    expect(first.has_more).toBe(true);
    const one = await gateway.app.inject({
      method: 'GET',
      url: '/v1/models/m-3',
      headers: { 'x-api-key': token },
    });
    expect(one.statusCode).toBe(404);
    const allowed = await gateway.app.inject({
      method: 'GET',
      url: '/v1/models/m-4',
      headers: { 'x-api-key': token },
    });
    expect(allowed.statusCode).toBe(200);
    // Without a token the public catalog is whole.
    expect((await get('/v1/models')).body.data).toHaveLength(ids.length);
  });

  it('rejects a limit out of range with 400 in shape A', async () => {
    const { status, body } = await get('/v1/models?limit=0');
    expect(status).toBe(400);
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.type).toBeUndefined();
  });

  it('serves the extended public catalog with capabilities and prices', async () => {
    const { status, body } = await get('/api/public/models');
    expect(status).toBe(200);
    expect(body.data[0]).toMatchObject({
      id: 'm-1',
      capabilities: { vision: true, tools: true },
      context_window: 200_000,
      pricing: { input: 3, output: 15, cache_read: 0.3, cache_write_5m: 3.75, cache_write_1h: 6 },
    });
  });
});
