import Fastify from 'fastify';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { readResponsesRequestFixture } from './__fixtures__/read-responses-request-fixture.ts';
import { responsesRequestSchema } from './responses-request-schema.ts';

const validator = Compile(responsesRequestSchema);

const fixture = readResponsesRequestFixture;

describe('responsesRequestSchema', () => {
  it.each(['codex-request.json', 'codex-tool-round-trip-request.json'])(
    'accepts what Codex sends, extra fields included (%s)',
    (name) => {
      expect(validator.Check(fixture(name))).toBe(true);
    },
  );

  it('accepts a plain string input and unknown top-level fields', () => {
    expect(validator.Check({ model: 'm', input: 'hi', some_future_field: { a: 1 } })).toBe(true);
  });

  it.each([
    ['no model', { input: 'hi' }],
    ['an empty model', { model: '', input: 'hi' }],
    ['a numeric input', { model: 'm', input: 3 }],
    [
      'a function call without call_id',
      { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
    ],
    ['a message with an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }],
    ['a typeless item without role', { model: 'm', input: [{ content: 'x' }] }],
    [
      'a text part without text',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] },
    ],
    [
      'a function tool without a name',
      { model: 'm', input: 'x', tools: [{ type: 'function', parameters: {} }] },
    ],
    [
      'a namespace without tools',
      { model: 'm', input: 'x', tools: [{ type: 'namespace', name: 'n' }] },
    ],
    ['max_output_tokens of 0', { model: 'm', input: 'x', max_output_tokens: 0 }],
    [
      'a json_schema format without schema',
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'n' } } },
    ],
  ])('rejects %s', (_name, body) => {
    expect(validator.Check(body)).toBe(false);
  });
});

describe('responsesRequestSchema under Fastify validation (type coercion on)', () => {
  async function post(body: unknown) {
    const app = Fastify({ logger: false });
    app.post(
      '/v1/responses',
      { schema: { body: responsesRequestSchema } },
      (request) => request.body,
    );
    const response = await app.inject({
      method: 'POST',
      url: '/v1/responses',
      payload: body as object,
    });
    await app.close();
    return response;
  }

  it.each(['codex-request.json', 'codex-tool-round-trip-request.json'])(
    'accepts %s and leaves it unchanged, one-element content arrays included',
    async (name) => {
      const body = fixture(name);
      const response = await post(body);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(body);
    },
  );

  it('keeps nulls as nulls instead of coercing them', async () => {
    const body = {
      model: 'm',
      input: 'x',
      instructions: null,
      include: null,
      store: null,
      max_output_tokens: null,
    };
    const response = await post(body);
    expect(response.json()).toEqual(body);
  });

  it('names the missing field of the variant that was sent', async () => {
    const response = await post({
      model: 'm',
      input: [{ type: 'function_call', name: 'f', arguments: '{}' }],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toContain('call_id');
  });
});
