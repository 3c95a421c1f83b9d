import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Permission } from '../../src/auth/permissions.ts';
import { imagesConfig } from '../images/image-test-bed.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { connectClient } from './mcp-test-bed.ts';

type Json = Record<string, unknown>;

/** Listing tools asks no provider: their addresses need not answer. */
const unreachable = 'http://127.0.0.1:9';

const imageTools = [
  'image_sources',
  'list_image_models',
  'generate_image',
  'get_image_generation',
  'download_image',
];

interface ListeningGateway {
  gateway: TestGateway;
  origin: string;
  close(): Promise<void>;
}

async function startListening(config: Record<string, unknown>): Promise<ListeningGateway> {
  const gateway = await startTestGateway(config, {
    env: { SEARCH_KEY: 'search-key', IMAGE_KEY: 'image-key' },
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gateway.app.server.address() as AddressInfo;
  return { gateway, origin: `http://127.0.0.1:${port}`, close: () => gateway.close() };
}

function textOf(result: Json): string {
  return ((result.content as Array<{ type: string; text?: string }>) ?? [])
    .map((part) => part.text ?? '')
    .join('');
}

/** Every property of an object schema and of the objects inside it, as `path: schema`. */
function propertiesOf(schema: Json, path = ''): Array<[string, Json]> {
  const found: Array<[string, Json]> = [];
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const [name, property] of Object.entries(properties)) {
    const where = path === '' ? name : `${path}.${name}`;
    found.push([where, property]);
    found.push(...propertiesOf(property, where));
    if (typeof property.items === 'object' && property.items !== null) {
      found.push(...propertiesOf(property.items as Json, `${where}[]`));
    }
  }
  return found;
}

describe('MCP tools/list for each token (docs/mcp.md, Tools)', () => {
  const bed = useTestBed(() =>
    startListening({
      search: {
        providers: [
          { id: 'tavily-0', kind: 'tavily', baseUrl: unreachable, apiKeyEnv: 'SEARCH_KEY' },
        ],
        pricePerRequest: 0.005,
      },
      images: imagesConfig(unreachable),
    }),
  );
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  const connectWith = async (permissions: Permission[]) => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000, permissions });
    const client = await connectClient(bed.origin, { authorization: `Bearer ${token}` });
    clients.push(client);
    return client;
  };
  const namesFor = async (permissions: Permission[]) =>
    (await (await connectWith(permissions)).listTools()).tools.map((tool) => tool.name);

  it('lists only the tools the token may call', async () => {
    expect(await namesFor(['mcp:call'])).toEqual([]);
    expect(await namesFor(['mcp:call', 'model:read'])).toEqual(['list_models']);
    expect(await namesFor(['mcp:call', 'search:create'])).toEqual(['search']);
    expect(await namesFor(['mcp:call', 'image:create'])).toEqual(imageTools);
    expect(
      await namesFor(['mcp:call', 'model:read', 'search:create', 'image:create', 'audio:create']),
    ).toEqual(['list_models', 'search', ...imageTools]);

    // A tool left out of the list still answers why, rather than as an unknown tool.
    const client = await connectWith(['mcp:call', 'model:read']);
    const denied = (await client.callTool({ name: 'search', arguments: { query: 'q' } })) as Json;
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('lacks the "search:create" permission');
  });

  it('describes every input property of every tool', async () => {
    const client = await connectWith(['mcp:call', 'model:read', 'search:create', 'image:create']);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
    const undescribed = tools.flatMap((tool) =>
      propertiesOf(tool.inputSchema as Json)
        .filter(
          ([, property]) => typeof property.description !== 'string' || property.description === '',
        )
        .map(([path]) => `${tool.name}.${path}`),
    );
    expect(undescribed).toEqual([]);
  });
});

describe('MCP image_sources without an images section (docs/images.md)', () => {
  const bed = useTestBed(() => startListening({}));

  it('is listed alone of the image tools and says image generation is not configured', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const client = await connectClient(bed.origin, { authorization: `Bearer ${token}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['list_models', 'image_sources']);
      const result = (await client.callTool({ name: 'image_sources', arguments: {} })) as Json;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({
        object: 'list',
        data: [
          { source: 'credits', available: false, reason: expect.stringMatching(/not configured/) },
          { source: 'connected', available: false, reason: expect.any(String) },
        ],
      });
      const http = await bed.gateway.app.inject({
        method: 'GET',
        url: '/v1/images/sources',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(result.structuredContent).toEqual(http.json());
      await expect(
        client.callTool({ name: 'generate_image', arguments: {} }),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});
