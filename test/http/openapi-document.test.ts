import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

describe('GET /openapi.json: the OpenAPI 3.1 contract', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      providers: {
        up: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' },
        audio: { kind: 'openai-transcription', baseUrl: 'http://127.0.0.1:9' },
      },
      models: [testModel('m', 'up')],
      evaluation: { modelId: 'evaluator', judgeModel: 'm' },
      search: { providers: [{ id: 'web', kind: 'searxng', baseUrl: 'http://127.0.0.1:9' }] },
      transcription: {
        models: [
          {
            id: 'whisper',
            deployments: [{ provider: 'audio', upstreamModel: 'whisper-1' }],
            pricing: { perSecond: 0.0001 },
          },
        ],
      },
    });
  });
  afterAll(async () => gateway.close());

  it('is a valid OpenAPI 3.1 document, contract version 1.0.0', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('carries the operationId of each landed route and hides the admin API', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operationIds = Object.values(
      document.paths as Record<string, Record<string, { operationId?: string }>>,
    )
      .flatMap((operations) => Object.values(operations).map((operation) => operation.operationId))
      .filter((id) => id !== undefined);
    expect(operationIds).toEqual(
      expect.arrayContaining([
        'listModels',
        'createMessage',
        'countMessageTokens',
        'createResponse',
        'createChatCompletion',
        'createEvaluation',
        'searchWeb',
        'createAudioTranscription',
        'callMcp',
        'getStorage',
        'listStorageAssets',
        'downloadStorageAsset',
        'deleteStorageAsset',
        'getStoragePolicy',
        'updateStoragePolicy',
        'cleanupStorage',
      ]),
    );
    expect(new Set(operationIds).size).toBe(operationIds.length);
    expect(Object.keys(document.paths).some((path) => path.startsWith('/api/admin'))).toBe(false);
  });

  it('describes createEvaluation with its headers, request and response schemas', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v4/ai/evaluation-model'].post;
    expect(operation.operationId).toBe('createEvaluation');
    const headers = Object.fromEntries(
      (operation.parameters as Array<{ in: string; name: string; required?: boolean }>)
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => [parameter.name, parameter.required]),
    );
    expect(headers).toEqual({
      'idempotency-key': true,
      'ai-model-id': true,
      'ai-evaluation-model-specification-version': true,
    });
    const request = operation.requestBody.content['application/json'].schema;
    expect(request.required).toEqual(['state', 'questions']);
    expect(request.additionalProperties).toBe(false);
    expect(request.properties.questions.maxProperties).toBe(128);
    // The answer tells its charge and the balance left, beside its body.
    expect(Object.keys(operation.responses['200'].headers)).toEqual([
      'x-switchyard-cost',
      'x-switchyard-balance',
    ]);
    const response = operation.responses['200'].content['application/json'].schema;
    expect(response.required).toEqual(['answers', 'usage']);
    expect(response.properties.usage.required).toEqual(['inputTokens', 'outputTokens']);
  });

  it('describes searchWeb with its optional x-request-id, strict request and answer', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v1/search'].post;
    expect(operation.operationId).toBe('searchWeb');
    const header = (
      operation.parameters as Array<{
        in: string;
        name: string;
        required?: boolean;
        schema: { maxLength: number };
      }>
    ).find((parameter) => parameter.in === 'header' && parameter.name === 'x-request-id');
    expect(header?.required).toBeFalsy();
    expect(header?.schema.maxLength).toBe(80);
    const request = operation.requestBody.content['application/json'].schema;
    expect(request.required).toEqual(['query']);
    expect(request.additionalProperties).toBe(false);
    expect(request.properties.query.maxLength).toBe(2000);
    expect(request.properties.max_results).toMatchObject({ minimum: 1, maximum: 10, default: 8 });
    expect(request.properties.effort).toMatchObject({ enum: ['basic'], default: 'basic' });
    const response = operation.responses['200'].content['application/json'].schema;
    expect(response.required).toEqual(
      expect.arrayContaining(['query', 'results', 'provider', 'request_id', 'usage']),
    );
  });

  it('lists the gateway headers of the 200 answers of the three generation routes', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/v1/messages', '/v1/responses', '/v1/chat/completions']) {
      const answer = document.paths[path].post.responses['200'];
      expect(answer.headers['x-switchyard-output-limit'].schema, path).toMatchObject({
        type: 'integer',
        minimum: 1,
      });
      expect(answer.headers['x-switchyard-output-limit'].description, path).toContain(
        'docs/decisions/0100',
      );
      expect(answer.headers['x-switchyard-ignored-fields'].schema, path).toMatchObject({
        type: 'string',
      });
      // The headers sit beside the answer's body schema, which stays as it was.
      expect(answer.content['application/json'].schema.type, path).toBe('object');
      for (const name of ['x-switchyard-cost', 'x-switchyard-balance'])
        expect(answer.headers[name].description, `${path} ${name}`).toContain(
          'docs/decisions/0149',
        );
      for (const kind of ['requests', 'tokens']) {
        expect(answer.headers[`x-ratelimit-limit-${kind}`].schema, path).toMatchObject({
          type: 'integer',
        });
        expect(answer.headers[`x-ratelimit-remaining-${kind}`].schema, path).toMatchObject({
          type: 'integer',
          minimum: 0,
        });
        expect(answer.headers[`x-ratelimit-reset-${kind}`].schema.type, path).toBe('string');
      }
      // The limiter's 429 tells the same standing, beside its retry-after.
      const refused = document.paths[path].post.responses['429'];
      expect(Object.keys(refused.headers), path).toEqual(
        expect.arrayContaining(['retry-after', 'x-ratelimit-remaining-requests']),
      );
    }
  });

  it('describes callMcp with its JSON-RPC request and both answer types', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = document.paths as Record<string, Record<string, unknown>>;
    // GET and DELETE only answer 405: they are no operations.
    expect(Object.keys(paths['/mcp'] ?? {})).toEqual(['post']);
    const operation = document.paths['/mcp'].post;
    expect(operation.operationId).toBe('callMcp');
    const request = operation.requestBody.content['application/json'].schema;
    const single = request.anyOf.find((schema: { type: string }) => schema.type === 'object');
    expect(single.required).toEqual(['jsonrpc', 'method']);
    expect(single.properties.jsonrpc).toMatchObject({ enum: ['2.0'] });
    expect(Object.keys(operation.responses['200'].content).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
  });

  it('describes createAudioTranscription with its required key and multipart parts', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v1/audio/transcriptions'].post;
    expect(operation.operationId).toBe('createAudioTranscription');
    const header = (
      operation.parameters as Array<{
        in: string;
        name: string;
        required?: boolean;
        schema: { maxLength: number };
      }>
    ).find((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key');
    expect(header?.required).toBe(true);
    expect(header?.schema.maxLength).toBe(80);
    expect(Object.keys(operation.requestBody.content)).toEqual(['multipart/form-data']);
    const request = operation.requestBody.content['multipart/form-data'].schema;
    expect(request.required).toEqual(['file', 'model']);
    expect(request.additionalProperties).toBe(false);
    expect(Object.keys(request.properties)).toEqual([
      'file',
      'model',
      'language',
      'prompt',
      'response_format',
    ]);
    expect(request.properties.file).toMatchObject({ contentMediaType: 'audio/wav' });
    const response = operation.responses['200'].content['application/json'].schema;
    expect(response.required).toEqual(['text']);
  });

  it('describes every storage route with its field names', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = document.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/v1/storage'] ?? {})).toContain('get');
    expect(Object.keys(paths['/v1/storage/assets'] ?? {})).toContain('get');
    expect(Object.keys(paths['/v1/storage/assets/{id}/content'] ?? {})).toContain('get');
    expect(Object.keys(paths['/v1/storage/assets/{id}'] ?? {})).toContain('delete');
    expect(Object.keys(paths['/v1/storage/policy'] ?? {}).sort()).toEqual(
      expect.arrayContaining(['get', 'patch']),
    );
    expect(Object.keys(paths['/v1/storage/cleanup'] ?? {})).toContain('post');
    const text = JSON.stringify(document);
    for (const field of [
      'delete_at',
      'protected',
      'next_cursor',
      'max_retention_days',
      'pending',
    ]) {
      expect(text).toContain(`"${field}"`);
    }
  });

  it('lists both 402 codes (docs/decisions/0101), and retry-after, on every paid route of the OpenAPI document', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = document.paths as Record<
      string,
      { post: { responses: Record<string, Record<string, unknown>> } }
    >;
    for (const path of [
      '/v1/messages',
      '/v1/responses',
      '/v1/chat/completions',
      '/v1/search',
      '/v1/audio/transcriptions',
    ]) {
      const answer = paths[path]?.post.responses['402'];
      expect(answer, path).toBeDefined();
      expect(answer?.description).toMatch(
        /insufficient_credits.*credits_reserved.*budget_exceeded/s,
      );
      expect(answer?.headers).toHaveProperty('retry-after');
    }
    const chat = paths['/v1/chat/completions']?.post.responses['402'] as {
      content: Record<string, { schema: { properties: { error: { properties: object } } } }>;
    };
    expect(
      JSON.stringify(chat.content['application/json']?.schema.properties.error.properties),
    ).toMatch(/credits_reserved.*budget_exceeded/);
  });
});
