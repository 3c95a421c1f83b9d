import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeImageUpstream } from '../images/fake-image-upstream.ts';
import {
  bflPrice,
  createImage,
  getWithToken,
  imagesConfig,
  openaiPrice,
  startImageBed,
  type ImageBed,
} from '../images/image-test-bed.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { connectClient, storeImagePastInlineSize } from './mcp-test-bed.ts';

type Json = Record<string, unknown>;

const credits = 10_000_000;
const imageTools = [
  'image_sources',
  'list_image_models',
  'generate_image',
  'get_image_generation',
  'download_image',
];

function textOf(result: Json): string {
  return ((result.content as Array<{ type: string; text?: string }>) ?? [])
    .map((part) => part.text ?? '')
    .join('');
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface McpImageBed extends ImageBed {
  origin: string;
}

/** Where download_image links point: configured, unlike the address the tests reach. */
const publicBaseUrl = 'https://gateway.example/base';

async function startMcpImageBed(images: Record<string, unknown> = {}): Promise<McpImageBed> {
  const bed = await startImageBed({
    images,
    config: { server: { publicBaseUrl: `${publicBaseUrl}/` } },
  });
  await bed.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = bed.gateway.app.server.address() as AddressInfo;
  return { ...bed, origin: `http://127.0.0.1:${port}` };
}

describe('MCP image tools over the SDK client', () => {
  const bed = useTestBed(() => startMcpImageBed());
  const clients: Client[] = [];
  afterEach(async () => {
    bed.fake.holdJobs = false;
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  const connect = async (token: string) => {
    const client = await connectClient(bed.origin, bearer(token));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Json) =>
    (await client.callTool({ name, arguments: args })) as Json;
  const balance = async (accountId: string) => bed.gateway.store.ledger.getBalance(accountId);

  it('lists the five image tools after list_models, with schemas and annotations', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const { tools } = await (await connect(token)).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_models', ...imageTools]);
    const generate = tools.find((tool) => tool.name === 'generate_image');
    expect(generate?.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: expect.arrayContaining(['model', 'prompt', 'source', 'idempotency_key']),
      properties: {
        source: { const: 'credits' },
        resolution: { anyOf: [{ const: '1K' }, { const: '2K' }, { const: '4K' }] },
        idempotency_key: { type: 'string', maxLength: 255 },
        input_images: { type: 'array', maxItems: 8 },
      },
    });
    expect(Object.keys(generate?.inputSchema.properties ?? {})).not.toContain('include_base64');
    expect(generate?.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['id', 'status', 'poll_path']),
    });
    expect(generate?.annotations).toEqual({
      title: 'Generate image',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    for (const name of ['image_sources', 'list_image_models', 'get_image_generation']) {
      expect(tools.find((tool) => tool.name === name)?.annotations).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    const download = tools.find((tool) => tool.name === 'download_image');
    expect(download?.inputSchema).toMatchObject({ required: ['asset_id'] });
    expect(download?.outputSchema).toMatchObject({
      required: expect.arrayContaining(['id', 'content_type', 'delivery']),
    });
  });

  it('image_sources and list_image_models answer what the HTTP routes answer', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    const sources = await call(client, 'image_sources', {});
    expect(sources.isError, textOf(sources)).toBeFalsy();
    const httpSources = await getWithToken(bed.gateway, token, '/v1/images/sources');
    expect(sources.structuredContent).toEqual(httpSources.json());
    expect(sources.structuredContent).toMatchObject({
      data: [{ source: 'credits', available: true, reason: null }, { available: false }],
    });
    const models = await call(client, 'list_image_models', { source: 'credits' });
    const httpModels = await getWithToken(bed.gateway, token, '/v1/images/models');
    expect(models.structuredContent).toEqual(httpModels.json());
    expect(JSON.parse(textOf(models))).toEqual(httpModels.json());
    const other = await call(client, 'list_image_models', { source: 'connected' });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain('source');

    const { token: empty } = await bed.gateway.createToken({ credits: 0 });
    const drained = await call(await connect(empty), 'image_sources', {});
    expect((drained.structuredContent as { data: Json[] }).data[0]).toEqual({
      source: 'credits',
      available: false,
      reason: expect.stringContaining('empty'),
    });
  });

  it('generate_image answers a finished generation, charges per image, and download_image gives its PNG', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    const result = await call(client, 'generate_image', {
      model: 'picture-sync',
      prompt: 'a lighthouse',
      source: 'credits',
      aspect_ratio: '3:2',
      n: 2,
      idempotency_key: 'mcp-sync-1',
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const generation = result.structuredContent as {
      id: string;
      status: string;
      images: Array<{ id: string; content_type: string; sha256: string; b64_json?: string }>;
      usage: Json;
    };
    expect(JSON.parse(textOf(result))).toEqual(generation);
    expect(generation.status).toBe('succeeded');
    expect(generation.images).toHaveLength(2);
    expect(generation.images[0]?.b64_json).toBeUndefined();
    expect(generation.usage).toEqual({ images: 2, credits: (2 * openaiPrice) / 1e6 });
    expect(bed.fake.requests.at(-1)?.body).toMatchObject({ prompt: 'a lighthouse', n: 2 });
    expect((await balance(accountId)).balance).toBe(credits - 2 * openaiPrice);

    const image = generation.images[1] as { id: string; content_type: string; sha256: string };
    const download = await call(client, 'download_image', { asset_id: image.id });
    expect(download.isError, textOf(download)).toBeFalsy();
    const [block] = download.content as Array<{ type: string; data: string; mimeType: string }>;
    expect(block?.type).toBe('image');
    expect(block?.mimeType).toBe('image/png');
    expect(
      Buffer.from(block?.data ?? '', 'base64').equals(bed.fake.produced.at(-1) as Buffer),
    ).toBe(true);
    expect(download.structuredContent).toMatchObject({
      id: image.id,
      content_type: 'image/png',
      sha256: image.sha256,
      delivery: 'inline',
      download_path: `/v1/storage/assets/${image.id}/content`,
    });
  });

  it('a job-style model answers queued or running, then get_image_generation until it succeeds', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    bed.fake.holdJobs = true;
    const result = await call(client, 'generate_image', {
      model: 'picture-job',
      prompt: 'a fox',
      source: 'credits',
      aspect_ratio: '16:9',
      idempotency_key: 'mcp-job-1',
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const job = result.structuredContent as { id: string; status: string };
    expect(['queued', 'running']).toContain(job.status);
    expect((await balance(accountId)).held).toBe(bflPrice);
    const running = await call(client, 'get_image_generation', { job_id: job.id });
    expect(['queued', 'running']).toContain((running.structuredContent as Json).status);
    bed.fake.holdJobs = false;
    let done: Json = {};
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const poll = await call(client, 'get_image_generation', { job_id: job.id });
      expect(poll.isError, textOf(poll)).toBeFalsy();
      done = poll.structuredContent as Json;
      if (done.status !== 'queued' && done.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(done).toMatchObject({ id: job.id, status: 'succeeded', model: 'picture-job' });
    const http = await getWithToken(bed.gateway, token, `/v1/images/generations/${job.id}`);
    expect(done).toEqual(http.json());
    const [image] = done.images as Array<{ id: string }>;
    const download = await call(client, 'download_image', { asset_id: image?.id as string });
    const [block] = download.content as Array<{ data: string }>;
    expect(
      Buffer.from(block?.data ?? '', 'base64').equals(bed.fake.produced.at(-1) as Buffer),
    ).toBe(true);
    expect(await balance(accountId)).toMatchObject({ balance: credits - bflPrice, held: 0 });
  });

  it('the same idempotency_key replays the generation, across MCP and the HTTP route; other arguments fail', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    const args = {
      model: 'picture-sync',
      prompt: 'once',
      source: 'credits',
      idempotency_key: 'mcp-replay-1',
    };
    const first = await call(client, 'generate_image', args);
    const submits = bed.fake.submits('openai');
    // Defaults count as sent: the same request.
    const again = await call(client, 'generate_image', { ...args, output_format: 'png' });
    expect(again.structuredContent).toEqual(first.structuredContent);
    const { idempotency_key: key, ...body } = args;
    const http = await createImage(bed.gateway, token, key, body);
    expect(http.headers['idempotent-replayed']).toBe('true');
    expect(http.json()).toEqual(first.structuredContent);
    const changed = await call(client, 'generate_image', { ...args, prompt: 'twice' });
    expect(changed.isError).toBe(true);
    expect(textOf(changed)).toContain('idempotency_key_reused');
    expect(textOf(changed)).toContain('409');
    expect(bed.fake.submits('openai')).toBe(submits);
    expect((await balance(accountId)).balance).toBe(credits - openaiPrice);
  });

  it('a balance below the worst case is a tool error naming 402, with no upstream call', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: openaiPrice * 4 - 1 });
    const before = bed.fake.requests.length;
    const result = await call(await connect(token), 'generate_image', {
      model: 'picture-sync',
      prompt: 'too dear',
      source: 'credits',
      quality: 'high',
      idempotency_key: 'mcp-poor-1',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('insufficient_credits');
    expect(textOf(result)).toContain('HTTP 402');
    expect(result.structuredContent).toBeUndefined();
    expect(bed.fake.requests.length).toBe(before);
    expect(await balance(accountId)).toMatchObject({ balance: openaiPrice * 4 - 1, held: 0 });
  });

  it('answers 410 image_result_deleted once every image is deleted, for a poll and a replay', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    const args = {
      model: 'picture-sync',
      prompt: 'short lived',
      source: 'credits',
      idempotency_key: 'mcp-gone-1',
    };
    const generation = (await call(client, 'generate_image', args)).structuredContent as {
      id: string;
      images: Array<{ id: string }>;
    };
    const submits = bed.fake.submits('openai');
    const assetId = generation.images[0]?.id as string;
    const deleted = await bed.gateway.app.inject({
      method: 'DELETE',
      url: `/v1/storage/assets/${assetId}`,
      headers: bearer(token),
    });
    expect(deleted.statusCode).toBeLessThan(300);
    const poll = await call(client, 'get_image_generation', { job_id: generation.id });
    expect(poll.isError).toBe(true);
    expect(textOf(poll)).toContain('image_result_deleted');
    expect(textOf(poll)).toContain('HTTP 410');
    const replay = await call(client, 'generate_image', args);
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toContain('image_result_deleted');
    expect(bed.fake.submits('openai')).toBe(submits);
    const download = await call(client, 'download_image', { asset_id: assetId });
    expect(download.isError).toBe(true);
    expect(textOf(download)).toContain('not_found');
  });

  it('without image:create every image tool is a tool error, and nothing is asked or charged', async () => {
    const { token: owner } = await bed.gateway.createToken({ credits });
    const made = (
      await call(await connect(owner), 'generate_image', {
        model: 'picture-sync',
        prompt: 'owned',
        source: 'credits',
        idempotency_key: 'mcp-owned-1',
      })
    ).structuredContent as { id: string; images: Array<{ id: string }> };
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['mcp:call', 'model:read'],
    });
    const client = await connect(token);
    const before = bed.fake.requests.length;
    const argumentsOf: Record<string, Json> = {
      image_sources: {},
      list_image_models: {},
      generate_image: {
        model: 'picture-sync',
        prompt: 'denied',
        source: 'credits',
        idempotency_key: 'mcp-denied-1',
      },
      get_image_generation: { job_id: made.id },
      download_image: { asset_id: made.images[0]?.id as string },
    };
    for (const name of imageTools) {
      const result = await call(client, name, argumentsOf[name] as Json);
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toContain('lacks the "image:create" permission');
      expect(result.structuredContent).toBeUndefined();
    }
    expect(bed.fake.requests.length).toBe(before);
    expect((await balance(accountId)).balance).toBe(credits);
    expect((await call(client, 'list_models', {})).isError).toBeFalsy();
  });

  it("another account's job and image are unknown (404)", async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const made = (
      await call(await connect(token), 'generate_image', {
        model: 'picture-sync',
        prompt: 'mine',
        source: 'credits',
        idempotency_key: 'mcp-mine-1',
      })
    ).structuredContent as { id: string; images: Array<{ id: string }> };
    const { token: other } = await bed.gateway.createToken({ credits });
    const client = await connect(other);
    const poll = await call(client, 'get_image_generation', { job_id: made.id });
    expect(poll.isError).toBe(true);
    expect(textOf(poll)).toMatch(/not_found, like HTTP 404/);
    const download = await call(client, 'download_image', {
      asset_id: made.images[0]?.id as string,
    });
    expect(download.isError).toBe(true);
    expect(textOf(download)).toMatch(/not_found, like HTTP 404/);
    expect(download.content).toHaveLength(1);
  });

  it('a request the model cannot serve, or a missing key, is a tool error naming the field', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const client = await connect(token);
    const before = bed.fake.requests.length;
    const base = { model: 'picture-sync', prompt: 'p', source: 'credits', idempotency_key: 'k-1' };
    const ratio = await call(client, 'generate_image', { ...base, aspect_ratio: '16:9' });
    expect(ratio.isError).toBe(true);
    expect(textOf(ratio)).toMatch(/aspect_ratio: picture-sync offers auto, 1:1, 3:2.*HTTP 400/);
    const model = await call(client, 'generate_image', { ...base, model: 'nope' });
    expect(textOf(model)).toContain('unknown_model');
    const { idempotency_key: _key, ...keyless } = base;
    const missing = await call(client, 'generate_image', keyless);
    expect(textOf(missing)).toContain('idempotency_key is required');
    const source = await call(client, 'generate_image', { ...base, source: 'connected' });
    expect(source.isError).toBe(true);
    expect(textOf(source)).toContain('source');
    const image = await call(client, 'generate_image', {
      ...base,
      model: 'picture-job',
      input_images: [{ name: 'ref.png', media_type: 'image/png', data: 'bm90IGEgcG5n' }],
    });
    expect(textOf(image)).toContain('input_images[0].data');
    expect(bed.fake.requests.length).toBe(before);
  });

  it('download_image links to an image past the inline size, and refuses a file that is no image', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const { stored, bytes: large } = await storeImagePastInlineSize(bed.gateway, accountId);
    const client = await connect(token);
    const result = await call(client, 'download_image', { asset_id: stored.id });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ delivery: 'link', size: large.length });
    const [link] = result.content as Array<{ type: string; uri: string; mimeType: string }>;
    const downloadPath = `/v1/storage/assets/${stored.id}/content`;
    expect(link).toMatchObject({
      type: 'resource_link',
      uri: `${publicBaseUrl}${downloadPath}`,
      mimeType: 'image/png',
      size: large.length,
    });
    const fetched = await request(`${bed.origin}${downloadPath}`, { headers: bearer(token) });
    expect(fetched.statusCode).toBe(200);
    expect(Buffer.from(await fetched.body.arrayBuffer()).equals(large)).toBe(true);

    const audio = await bed.gateway.storage.storeAsset({
      accountId,
      name: 'talk.wav',
      contentType: 'audio/wav',
      source: 'transcription_upload',
      body: Readable.from([Buffer.from('RIFF....WAVE')]),
      protected: false,
      preparedAt: Date.now(),
    });
    const refused = await call(client, 'download_image', { asset_id: audio.id });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/asset_id: .* is not an image.*HTTP 400/);
  });
});

describe('MCP image tools and request limits', () => {
  it('counts generate_image against the token limit: past it, a tool error with no upstream call', async () => {
    const fake = await startFakeImageUpstream();
    const gateway = await startTestGateway(
      { images: imagesConfig(fake.url), limits: { token: { requestsPerMinute: 1 } } },
      { env: { IMAGE_KEY: 'image-upstream-key' } },
    );
    try {
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = gateway.app.server.address() as AddressInfo;
      const { token } = await gateway.createToken({ credits });
      const client = await connectClient(`http://127.0.0.1:${port}`, bearer(token));
      const args = { model: 'picture-sync', prompt: 'p', source: 'credits' };
      const first = (await client.callTool({
        name: 'generate_image',
        arguments: { ...args, idempotency_key: 'limit-1' },
      })) as Json;
      expect(first.isError, textOf(first)).toBeFalsy();
      const second = (await client.callTool({
        name: 'generate_image',
        arguments: { ...args, idempotency_key: 'limit-2' },
      })) as Json;
      expect(second.isError).toBe(true);
      expect(textOf(second)).toMatch(/rate_limited.*429.*Retry after \d+ s/);
      expect(fake.submits('openai')).toBe(1);
      await client.close();
    } finally {
      await gateway.close();
      await fake.close();
    }
  });
});
