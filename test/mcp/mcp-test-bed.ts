import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Asset } from '../../src/features/storage/asset.ts';
import { inlineImageMaxBytes } from '../../src/features/mcp/download-image-tool.ts';
import { encodePng } from '../images/png-bytes.ts';
import { startSearchBed, type SearchBed } from '../search/search-test-bed.ts';
import { testModel, type TestGateway } from '../support/test-gateway.ts';

export interface McpBed extends SearchBed {
  /** The listening gateway's origin. */
  origin: string;
}

/** A listening gateway with a model catalog and one fake Tavily-style search provider. */
export async function startMcpBed(config: Record<string, unknown> = {}): Promise<McpBed> {
  const bed = await startSearchBed(['tavily'], {
    config: {
      providers: { up: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' } },
      models: [testModel('mcp-model-a', 'up'), testModel('mcp-model-b', 'up')],
      ...config,
    },
  });
  await bed.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = bed.gateway.app.server.address() as AddressInfo;
  return { ...bed, origin: `http://127.0.0.1:${port}` };
}

/** The MCP SDK's own client, connected (initialize + initialized) with `headers`. */
export async function connectClient(
  origin: string,
  headers: Record<string, string>,
): Promise<Client> {
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

export const streamableAccept = 'application/json, text/event-stream';

/** A raw POST /mcp, for what the SDK's client never sends. */
export function postMcp(
  gateway: TestGateway,
  headers: Record<string, string>,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: streamableAccept, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function rpc(method: string, params?: Record<string, unknown>, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
}

/**
 * Stores, as `accountId`'s result image, a PNG just over the size `download_image` answers
 * inline (random pixels do not compress), for the tests of what the tool does past that size.
 */
export async function storeImagePastInlineSize(
  gateway: TestGateway,
  accountId: string,
): Promise<{ stored: Asset; bytes: Buffer }> {
  const width = 1100;
  const height = Math.ceil(inlineImageMaxBytes / (width * 3)) + 2;
  const large = encodePng(width, height, randomBytes(width * height * 3));
  expect(large.length).toBeGreaterThan(inlineImageMaxBytes);
  const stored = await gateway.storage.storeAsset({
    accountId,
    name: 'large.png',
    contentType: 'image/png',
    source: 'image_result',
    body: Readable.from([large]),
    protected: false,
    preparedAt: Date.now(),
  });
  return { stored, bytes: large };
}
