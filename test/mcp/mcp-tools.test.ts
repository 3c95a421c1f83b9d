import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, postSearch } from '../search/search-test-bed.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { connectClient, startMcpBed, type McpBed } from './mcp-test-bed.ts';

type Json = Record<string, unknown>;

/** 0.005 credits per search, in micro-credits. */
const price = 5_000;

function textOf(result: Json): string {
  return ((result.content as Array<{ type: string; text?: string }>) ?? [])
    .map((part) => part.text ?? '')
    .join('');
}

describe('MCP tools over the SDK client', () => {
  let bed: McpBed;
  const clients: Client[] = [];
  beforeAll(async () => {
    bed = await startMcpBed();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => bed.close());

  const connect = async (headers: Record<string, string>) => {
    const client = await connectClient(bed.origin, headers);
    clients.push(client);
    return client;
  };
  const searches = () => bed.upstreams[0]?.requests.length ?? 0;

  it('initializes as switchyard at the package version with the tools capability', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect(bearer(token));
    expect(client.getServerVersion()).toEqual({ name: 'switchyard', version: '0.1.0' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('lists list_models and search with input and output schemas and annotations', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const { tools } = await (await connect(bearer(token))).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_models', 'search', 'image_sources']);
    const search = tools.find((tool) => tool.name === 'search');
    expect(search?.inputSchema).toMatchObject({
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: {
        query: { type: 'string', maxLength: 2000 },
        max_results: { type: 'integer', minimum: 1, maximum: 10 },
        request_id: { type: 'string', maxLength: 80 },
      },
    });
    expect(search?.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['query', 'results', 'provider', 'request_id', 'usage']),
    });
    expect(search?.annotations).toEqual({
      title: 'Web search',
      readOnlyHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    const listModels = tools.find((tool) => tool.name === 'list_models');
    expect(listModels?.outputSchema).toMatchObject({
      type: 'object',
      required: ['data', 'object', 'has_more', 'first_id', 'last_id'],
    });
    expect(listModels?.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('list_models answers what GET /v1/models answers, pages included', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect({ 'x-api-key': token });
    const result = (await client.callTool({ name: 'list_models', arguments: {} })) as Json;
    expect(result.isError).toBeFalsy();
    const http = await bed.gateway.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: bearer(token),
    });
    expect(result.structuredContent).toEqual(http.json());
    expect(JSON.parse(textOf(result))).toEqual(http.json());
    const page = (await client.callTool({
      name: 'list_models',
      arguments: { limit: 1, after_id: 'mcp-model-a' },
    })) as Json;
    expect(page.structuredContent).toMatchObject({
      data: [{ id: 'mcp-model-b' }],
      has_more: false,
      first_id: 'mcp-model-b',
    });
  });

  it('list_models lists to a token with allowed models only those models', async () => {
    const { token } = await bed.gateway.createToken({
      credits: 1_000_000,
      allowedModels: ['mcp-model-b'],
    });
    const client = await connect(bearer(token));
    const result = (await client.callTool({ name: 'list_models', arguments: {} })) as Json;
    expect(result.structuredContent).toMatchObject({
      data: [{ id: 'mcp-model-b' }],
      has_more: false,
    });
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(1);
  });

  it('search asks the provider, answers its hits and charges the search price once', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect(bearer(token));
    const before = searches();
    const result = (await client.callTool({
      name: 'search',
      arguments: { query: 'undici pools', max_results: 3 },
    })) as Json;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(searches()).toBe(before + 1);
    expect(bed.upstreams[0]?.requests.at(-1)?.body).toMatchObject({
      query: 'undici pools',
      max_results: 3,
    });
    const answer = result.structuredContent as Json;
    expect(answer).toMatchObject({
      query: 'undici pools',
      provider: 'tavily-0',
      usage: { requests: 1, credits: 0.005 },
    });
    expect((answer.results as Json[]).map((hit) => hit.title)).toEqual([
      'Result 1 for undici pools',
      'Result 2 for undici pools',
      'Result 3 for undici pools',
    ]);
    expect(JSON.parse(textOf(result))).toEqual(answer);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(1_000_000 - price);
  });

  it('search under a request_id replays within the window, across MCP and POST /v1/search', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect(bearer(token));
    const before = searches();
    const call = (args: Json) =>
      client.callTool({ name: 'search', arguments: args }) as Promise<Json>;
    const first = await call({ query: 'replay me', request_id: 'mcp-replay-1' });
    // Defaults count as sent: the same request.
    const second = await call({ query: 'replay me', max_results: 8, request_id: 'mcp-replay-1' });
    expect(second.structuredContent).toEqual(first.structuredContent);
    const http = await postSearch(
      bed.gateway,
      { ...bearer(token), 'x-request-id': 'mcp-replay-1' },
      { query: 'replay me' },
    );
    expect(http.headers['idempotent-replayed']).toBe('true');
    expect(http.json()).toEqual(first.structuredContent);
    expect(searches()).toBe(before + 1);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(1_000_000 - price);

    const changed = await call({ query: 'something else', request_id: 'mcp-replay-1' });
    expect(changed.isError).toBe(true);
    expect(textOf(changed)).toContain('idempotency_key_reused');
    expect(searches()).toBe(before + 1);
  });

  it('search without search:create is a tool error, and nothing is asked or charged', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits: 1_000_000,
      permissions: ['mcp:call', 'model:read'],
    });
    const client = await connect(bearer(token));
    const before = searches();
    const result = (await client.callTool({ name: 'search', arguments: { query: 'q' } })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('lacks the "search:create" permission');
    expect(result.structuredContent).toBeUndefined();
    expect(searches()).toBe(before);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(1_000_000);
    // The tools it may use still work.
    const models = (await client.callTool({ name: 'list_models', arguments: {} })) as Json;
    expect(models.isError).toBeFalsy();
  });

  it('list_models without model:read is a tool error', async () => {
    const { token } = await bed.gateway.createToken({
      credits: 1_000_000,
      permissions: ['mcp:call'],
    });
    const result = (await (
      await connect(bearer(token))
    ).callTool({ name: 'list_models', arguments: {} })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('lacks the "model:read" permission');
  });

  it('a balance that cannot cover the search is a tool error naming insufficient_credits', async () => {
    const { token } = await bed.gateway.createToken({ credits: price - 1 });
    const before = searches();
    const result = (await (
      await connect(bearer(token))
    ).callTool({ name: 'search', arguments: { query: 'q' } })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('insufficient_credits');
    expect(textOf(result)).toContain('402');
    expect(searches()).toBe(before);
  });

  it('arguments outside the schema are a tool error naming them, before any provider is asked', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect(bearer(token));
    const before = searches();
    const tooMany = (await client.callTool({
      name: 'search',
      arguments: { query: 'q', max_results: 11 },
    })) as Json;
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toContain('max_results');
    const extra = (await client.callTool({
      name: 'search',
      arguments: { query: 'q', depth: 'deep' },
    })) as Json;
    expect(textOf(extra)).toContain('depth');
    const missing = (await client.callTool({ name: 'search', arguments: {} })) as Json;
    expect(textOf(missing)).toContain('query is required');
    expect(searches()).toBe(before);
  });

  it('an unknown tool is the protocol error -32602', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connect(bearer(token));
    await expect(client.callTool({ name: 'generate_image', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool "generate_image"'),
    });
  });
  it('a provider failure is a tool error, and the hold is released', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    bed.upstreams[0]?.replies.push({ status: 400, body: { detail: 'bad query' } });
    const result = (await (
      await connect(bearer(token))
    ).callTool({ name: 'search', arguments: { query: 'q' } })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/HTTP [45]\d\d/);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: 1_000_000,
      held: 0,
    });
  });

  it("logs a provider's 5xx as one warn line naming the provider, without a stack", async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    bed.upstreams[0]?.replies.push({ status: 503, body: { detail: 'overloaded' } });
    const logged = bed.gateway.logs.length;
    const result = (await (
      await connect(bearer(token))
    ).callTool({ name: 'search', arguments: { query: 'q' } })) as Json;
    expect(result.isError).toBe(true);
    const lines = bed.gateway.logs
      .slice(logged)
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    // docs/decisions/0111: an upstream's failure is the operator's one line, never a bug's stack.
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(lines.find((line) => line.msg === 'upstream call failed')).toMatchObject({
      level: 40,
      tool: 'search',
      provider: 'tavily-0',
      upstreamStatus: 503,
    });
  });
});

describe('MCP search and request limits', () => {
  it('counts a search against the token limit: past it, a tool error with the retry time', async () => {
    const bed = await startMcpBed({ limits: { token: { requestsPerMinute: 1 } } });
    try {
      const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
      const client = await connectClient(bed.origin, bearer(token));
      const first = (await client.callTool({
        name: 'search',
        arguments: { query: 'one' },
      })) as Json;
      expect(first.isError).toBeFalsy();
      const second = (await client.callTool({
        name: 'search',
        arguments: { query: 'two' },
      })) as Json;
      expect(second.isError).toBe(true);
      expect(textOf(second)).toMatch(/rate_limited.*429.*Retry after \d+ s/);
      expect(bed.upstreams[0]?.requests).toHaveLength(1);
      await client.close();
    } finally {
      await bed.close();
    }
  });
});

describe('MCP without a search configuration', () => {
  it('does not list search, and calling it is an unknown tool', async () => {
    const gateway = await startTestGateway();
    try {
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = gateway.app.server.address() as { port: number };
      const { token } = await gateway.createToken({ credits: 1_000_000 });
      const client = await connectClient(`http://127.0.0.1:${port}`, bearer(token));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['list_models', 'image_sources']);
      await expect(
        client.callTool({ name: 'search', arguments: { query: 'q' } }),
      ).rejects.toMatchObject({ code: -32602 });
      await client.close();
    } finally {
      await gateway.close();
    }
  });
});
