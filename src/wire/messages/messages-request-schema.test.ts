import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokensRequestSchema, messagesRequestSchema } from './messages-request-schema.ts';
import { countTokensResponseSchema, messageResponseSchema } from './messages-response-schema.ts';

const claudeCodeRequest = JSON.parse(
  readFileSync(new URL('__fixtures__/claude-code-request.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** Validation as the HTTP layer does it: Fastify's own Ajv with its default options. */
const app = Fastify();
let received: unknown;
app.post('/v1/messages', { schema: { body: messagesRequestSchema } }, async (request) => {
  received = request.body;
  return {};
});
app.post(
  '/v1/messages/count_tokens',
  { schema: { body: countTokensRequestSchema } },
  async () => ({}),
);

beforeAll(() => app.ready());
afterAll(() => app.close());

async function status(payload: unknown, url = '/v1/messages'): Promise<number> {
  return (await app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> }))
    .statusCode;
}

const minimal = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

function withBlock(block: unknown, role = 'user') {
  return { ...minimal, messages: [{ role, content: [block] }] };
}

describe('messagesRequestSchema', () => {
  it('accepts a Claude Code body and leaves it exactly as sent', async () => {
    expect(await status(claudeCodeRequest)).toBe(200);
    expect(received).toEqual(claudeCodeRequest);
  });

  it.each([
    ['empty tools', { ...minimal, tools: [] }],
    [
      'a server tool',
      { ...minimal, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] },
    ],
    [
      'a custom tool type',
      { ...minimal, tools: [{ type: 'custom', name: 'x', input_schema: { type: 'object' } }] },
    ],
    [
      'tool_choice as an object',
      { ...minimal, tool_choice: { type: 'any', disable_parallel_tool_use: true } },
    ],
    ['thinking enabled', { ...minimal, thinking: { type: 'enabled', budget_tokens: 2048 } }],
    [
      'unknown top-level fields',
      { ...minimal, service_tier: 'auto', container: 'c', mcp_servers: [] },
    ],
    ['system as a string', { ...minimal, system: 'be brief' }],
    [
      'a system role message',
      { ...minimal, messages: [{ role: 'system', content: 'x' }, ...minimal.messages] },
    ],
    [
      'a redacted thinking block',
      withBlock({ type: 'redacted_thinking', data: 'Emw=' }, 'assistant'),
    ],
    [
      'a document block',
      withBlock({
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: 'd' },
      }),
    ],
    [
      'a search result block',
      withBlock({ type: 'search_result', source: 's', title: 't', content: [] }),
    ],
    [
      'an image by url',
      withBlock({ type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } }),
    ],
    [
      'text with citations and cache control',
      withBlock({
        type: 'text',
        text: 'x',
        citations: null,
        cache_control: { type: 'ephemeral', ttl: '1h' },
      }),
    ],
    ['a one-block system', { ...minimal, system: [{ type: 'text', text: 's' }] }],
    [
      'a tool result with one block',
      withBlock({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'r' }] }),
    ],
  ])('accepts %s without changing it', async (_name, body) => {
    expect(await status(body)).toBe(200);
    expect(received).toEqual(body);
  });

  it.each([
    ['no max_tokens', { model: 'm', messages: minimal.messages }],
    ['max_tokens 0', { ...minimal, max_tokens: 0 }],
    ['an empty model', { ...minimal, model: '' }],
    ['no messages', { ...minimal, messages: [] }],
    ['an unknown role', { ...minimal, messages: [{ role: 'tool', content: 'x' }] }],
    ['a text block without text', withBlock({ type: 'text' })],
    [
      'a tool_use block without input',
      withBlock({ type: 'tool_use', id: 'a', name: 'b' }, 'assistant'),
    ],
    ['a tool_result without tool_use_id', withBlock({ type: 'tool_result', content: 'x' })],
    [
      'a thinking block without signature',
      withBlock({ type: 'thinking', thinking: 'x' }, 'assistant'),
    ],
    ['a block without type', withBlock({ text: 'x' })],
    ['a client tool without input_schema', { ...minimal, tools: [{ name: 'x' }] }],
    ['a client tool with an empty name', { ...minimal, tools: [{ name: '', input_schema: {} }] }],
  ])('rejects %s', async (_name, body) => {
    expect(await status(body)).toBe(400);
  });
});

describe('countTokensRequestSchema', () => {
  it('accepts a body without max_tokens and rejects one without messages', async () => {
    const { max_tokens: _maxTokens, ...body } = claudeCodeRequest;
    expect(await status(body, '/v1/messages/count_tokens')).toBe(200);
    expect(await status({ model: 'm', messages: [] }, '/v1/messages/count_tokens')).toBe(400);
  });
});

describe('schema documents', () => {
  const schemas = {
    messagesRequestSchema,
    countTokensRequestSchema,
    messageResponseSchema,
    countTokensResponseSchema,
  };

  function hasKey(value: unknown, key: string): boolean {
    if (Array.isArray(value)) return value.some((item) => hasKey(item, key));
    if (typeof value !== 'object' || value === null) return false;
    return Object.entries(value).some(([name, child]) => name === key || hasKey(child, key));
  }

  it.each(Object.entries(schemas))(
    '%s is plain JSON Schema with a title and no $id',
    (_name, schema) => {
      const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
      expect(typeof plain.title).toBe('string');
      expect(hasKey(plain, '$id')).toBe(false);
      expect(plain).toEqual({ ...schema });
    },
  );
});
