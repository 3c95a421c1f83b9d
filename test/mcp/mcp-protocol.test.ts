import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import { bearer } from '../search/search-test-bed.ts';
import { postMcp, rpc, startMcpBed, type McpBed } from './mcp-test-bed.ts';

const initialize = (protocolVersion: string) =>
  rpc('initialize', {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1.0.0' },
  });

describe('POST /mcp: the protocol and its refusals', () => {
  let bed: McpBed;
  let token: string;
  beforeAll(async () => {
    bed = await startMcpBed();
    ({ token } = await bed.gateway.createToken({ credits: 1_000_000 }));
  });
  afterAll(async () => bed.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postMcp(
      bed.gateway,
      { ...bearer(token), 'mcp-protocol-version': '2025-06-18', ...headers },
      body,
    );

  /** A refusal of the whole POST: a JSON-RPC error with id null, also an error of shape B. */
  const expectRefusal = (
    response: Awaited<ReturnType<typeof post>>,
    status: number,
    code: number,
  ) => {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json();
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code, message: expect.any(String) },
    });
    return body;
  };

  it('answers initialize with every protocol version the SDK supports, without a session', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const response = await post(initialize(version));
      expect(response.statusCode).toBe(200);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(response.json().result).toMatchObject({
        protocolVersion: version,
        capabilities: { tools: {} },
        serverInfo: { name: 'switchyard' },
      });
    }
    // An unknown version is answered with the latest the server speaks.
    const unknown = await post(initialize('2099-01-01'));
    expect(unknown.json().result.protocolVersion).toBe(SUPPORTED_PROTOCOL_VERSIONS[0]);
  });

  it('answers JSON or an SSE stream as the Accept header prefers', async () => {
    const json = await post(rpc('tools/list'), { accept: 'application/json, text/event-stream' });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json().result.tools).toHaveLength(3);

    const sse = await post(rpc('tools/list', undefined, 'sse-1'), {
      accept: 'text/event-stream, application/json',
    });
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseServerSentEvents(sse.body);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.data ?? '')).toMatchObject({
      id: 'sse-1',
      result: { tools: expect.any(Array) },
    });

    const weighted = await post(rpc('ping'), {
      accept: 'application/json;q=0.5, text/event-stream',
    });
    expect(weighted.headers['content-type']).toMatch(/^text\/event-stream/);
  });

  it('answers notifications with 202 and no body', async () => {
    const response = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(response.statusCode).toBe(202);
    expect(response.body).toBe('');
  });

  it('401 without a token, with a malformed one, or without mcp:call', async () => {
    const none = await postMcp(bed.gateway, {}, initialize('2025-06-18'));
    expect(expectRefusal(none, 401, -32000).error.type).toBe('authentication_error');
    const malformed = await postMcp(bed.gateway, bearer('sy_nope'), initialize('2025-06-18'));
    expectRefusal(malformed, 401, -32000);
    const { token: noMcp } = await bed.gateway.createToken({
      credits: 1_000_000,
      permissions: ['search:create', 'model:read'],
    });
    const denied = await postMcp(bed.gateway, bearer(noMcp), initialize('2025-06-18'));
    expect(expectRefusal(denied, 401, -32000).error.message).toContain('mcp:call');
    // x-api-key carries the token too.
    const apiKey = await postMcp(bed.gateway, { 'x-api-key': token }, initialize('2025-06-18'));
    expect(apiKey.statusCode).toBe(200);
  });

  it('refuses a token check before reading the body: 401 even for a body that is not JSON', async () => {
    const response = await postMcp(bed.gateway, { 'content-type': 'text/plain' }, 'hello');
    expectRefusal(response, 401, -32000);
  });

  it('415 for a body that is not JSON', async () => {
    const response = await post('hello', { 'content-type': 'text/plain' });
    const body = expectRefusal(response, 415, -32000);
    // Also an error body of shape B (docs/api.md).
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('405 for GET and DELETE: a stateless server has no stream and no session', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await bed.gateway.app.inject({
        method,
        url: '/mcp',
        headers: { ...bearer(token), accept: 'text/event-stream' },
      });
      expectRefusal(response, 405, -32000);
      expect(response.headers.allow).toBe('POST');
    }
  });

  it('406 when Accept lacks application/json or text/event-stream', async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      expectRefusal(await post(initialize('2025-06-18'), { accept }), 406, -32000);
    }
  });

  it('-32700 for a body that is not JSON at all', async () => {
    expectRefusal(await post('{"jsonrpc": "2.0", "method": '), 400, -32700);
  });

  it('-32600 for JSON that is not a JSON-RPC request', async () => {
    expectRefusal(await post({ hello: 'world' }), 400, -32600);
    expectRefusal(await post({ jsonrpc: '1.0', id: 1, method: 'ping' }), 400, -32600);
    expectRefusal(await post({ jsonrpc: '2.0', id: 1, method: '' }), 400, -32600);
    expectRefusal(await post([]), 400, -32600);
    expectRefusal(await post('"a string"'), 400, -32600);
  });

  it('-32601 for a method the server does not serve', async () => {
    const response = await post(rpc('resources/list', {}, 7));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('-32602 for params that do not fit the method', async () => {
    const noName = await post(rpc('tools/call', { arguments: {} }, 8));
    expect(noName.json()).toMatchObject({
      id: 8,
      error: { code: -32602, message: expect.stringContaining('name') },
    });
    const noParams = await post(rpc('initialize', undefined, 9));
    expect(noParams.json()).toMatchObject({ id: 9, error: { code: -32602 } });
    const badCursor = await post(rpc('tools/list', { cursor: 5 }, 10));
    expect(badCursor.json()).toMatchObject({ id: 10, error: { code: -32602 } });
    // Over SSE the same error comes as an event.
    const sse = await post(rpc('tools/call', {}, 11), {
      accept: 'text/event-stream, application/json',
    });
    expect(JSON.parse(parseServerSentEvents(sse.body)[0]?.data ?? '')).toMatchObject({
      id: 11,
      error: { code: -32602 },
    });
  });

  it('answers a batch (protocol 2025-03-26) message by message', async () => {
    const response = await post([rpc('ping', undefined, 1), rpc('resources/list', undefined, 2)], {
      'mcp-protocol-version': '2025-03-26',
    });
    expect(response.statusCode).toBe(200);
    const answers = response.json() as Array<{
      id: number;
      result?: unknown;
      error?: { code: number };
    }>;
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
    expect(answers.find((answer) => answer.id === 2)?.error?.code).toBe(-32601);
  });

  it('413 for a body over the server limit, before the server sees it', async () => {
    const limit = bed.gateway.config.server.bodyLimitBytes;
    const response = await post(
      rpc('tools/call', { name: 'search', arguments: { query: 'q'.repeat(limit) } }),
    );
    expectRefusal(response, 413, -32000);
  });
});
