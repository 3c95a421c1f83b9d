import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { BlobStore } from '../../src/features/storage/blob-store.ts';
import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';
import { S3BlobStore } from '../../src/store/blob-s3/s3-blob-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
  probePostgres,
} from '../support/isolated-test-stores.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { startS3TestServer } from '../contract/start-s3-test-server.ts';
import { createImage, openaiPrice, startImageBed, type ImageBed } from './image-test-bed.ts';
import { encodePng, pixelsFor } from './png-bytes.ts';

const credits = 10_000_000;
const postgresUnreachable = await probePostgres();

/** A filesystem blob store that can be switched to refuse connections, as a down S3 would. */
class OutageBlobStore implements BlobStore {
  down = false;
  readonly #inner: BlobStore;
  constructor(inner: BlobStore) {
    this.#inner = inner;
  }
  #check(): void {
    if (this.down) {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), {
        code: 'ECONNREFUSED',
      });
    }
  }
  put: BlobStore['put'] = async (...args) => {
    this.#check();
    return this.#inner.put(...args);
  };
  get: BlobStore['get'] = async (...args) => {
    this.#check();
    return this.#inner.get(...args);
  };
  stat: BlobStore['stat'] = async (...args) => {
    this.#check();
    return this.#inner.stat(...args);
  };
  delete: BlobStore['delete'] = async (...args) => {
    this.#check();
    return this.#inner.delete(...args);
  };
}

const png = encodePng(2, 2, pixelsFor(2, 2, 7));

function inputImage(name: string) {
  return { name, media_type: 'image/png', data: png.toString('base64') };
}

/** Requests whose ids or names the stores cannot take as text must still answer 4xx. */
function refusesUnstorableText(bed: ImageBed): void {
  it('answers 404 for ids with a NUL byte, and cleanup skips them as not found', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const headers = { authorization: `Bearer ${token}` };
    const poll = await bed.gateway.app.inject({
      method: 'GET',
      url: '/v1/images/generations/%00',
      headers,
    });
    expect(poll.statusCode).toBe(404);
    for (const url of ['/v1/storage/assets/a%00b', '/v1/storage/assets/a%00b/content']) {
      const method = url.endsWith('content') ? 'GET' : 'DELETE';
      const response = await bed.gateway.app.inject({ method, url, headers });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    for (const dryRun of [true, false]) {
      const cleanup = await bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/storage/cleanup',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ asset_ids: ['\u0000', 'asset_\u0000'], dry_run: dryRun }),
      });
      expect(cleanup.statusCode).toBe(200);
      expect(cleanup.json().skipped).toEqual([
        { id: '\u0000', reason: 'not_found' },
        { id: 'asset_\u0000', reason: 'not_found' },
      ]);
    }
  });

  it('refuses a control character in an input image name with 400, storing nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const before = bed.fake.requests.length;
    for (const [index, name] of ['a\r\nb.png', 'nul\u0000.png', 'tab\t.png'].entries()) {
      const response = await createImage(bed.gateway, token, `control-${index}`, {
        model: 'picture-job',
        prompt: 'a sketch',
        source: 'credits',
        input_images: [inputImage('fine.png'), inputImage(name)],
      });
      expect(response.statusCode, name).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'invalid_request',
        param: 'input_images[1].name',
      });
    }
    expect(bed.fake.requests.length).toBe(before);
    expect((await bed.gateway.storage.describeStorage(accountId)).fileCount).toBe(0);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });
}

describe('unstorable text on SQLite', () => {
  const bed = useTestBed(async () => {
    const store = await openTemporarySqliteStore();
    const started = await startImageBed({ store });
    return {
      ...started,
      async close() {
        await started.close();
        await store.close();
      },
    };
  });
  refusesUnstorableText(bed);
});

describe.skipIf(postgresUnreachable !== undefined)('unstorable text on PostgreSQL', () => {
  const bed = useTestBed(async () => {
    const store: Store = await openIsolatedPostgresStore();
    const started = await startImageBed({ store });
    return {
      ...started,
      async close() {
        await started.close();
        await store.close();
      },
    };
  });
  refusesUnstorableText(bed);
});

describe('an image create while the upstream or the blob store fails', () => {
  let blobRoot: string;
  let blobs: OutageBlobStore;
  let bed: ImageBed;
  beforeAll(async () => {
    blobRoot = await mkdtemp(path.join(tmpdir(), 'switchyard-image-blobs-'));
    blobs = new OutageBlobStore(await FilesystemBlobStore.open(blobRoot));
    bed = await startImageBed({ blobs });
  });
  afterAll(async () => {
    await bed?.close();
    await rm(blobRoot, { recursive: true, force: true });
  });

  it('passes on the retry-after of an upstream 429, and charges nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    bed.fake.failures.push({ status: 429, headers: { 'retry-after': '17' } });
    const response = await createImage(bed.gateway, token, 'limited-1', {
      model: 'picture-sync',
      prompt: 'busy',
      source: 'credits',
    });
    expect(response.statusCode).toBe(429);
    expect(response.json().error.code).toBe('upstream_rate_limited');
    expect(response.headers['retry-after']).toBe('17');
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });

  it('answers 503 not_ready when the blob store is unreachable, and charges nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    blobs.down = true;
    try {
      // The results cannot be stored: the upstream answered, the client gets an outage.
      const results = await createImage(bed.gateway, token, 'outage-1', {
        model: 'picture-sync',
        prompt: 'nowhere to keep it',
        source: 'credits',
      });
      expect(results.statusCode, results.body).toBe(503);
      expect(results.json().error.code).toBe('not_ready');
      expect(results.headers['retry-after']).toBe('5');
      // The reference images cannot be stored: nothing is sent upstream.
      const before = bed.fake.requests.length;
      const inputs = await createImage(bed.gateway, token, 'outage-2', {
        model: 'picture-job',
        prompt: 'from a sketch',
        source: 'credits',
        input_images: [inputImage('sketch.png')],
      });
      expect(inputs.statusCode, inputs.body).toBe(503);
      expect(inputs.json().error.code).toBe('not_ready');
      expect(bed.fake.requests.length).toBe(before);
    } finally {
      blobs.down = false;
    }
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
    // Once the store is back the same key is free to succeed (a 503 does not keep it).
    const again = await createImage(bed.gateway, token, 'outage-1', {
      model: 'picture-sync',
      prompt: 'nowhere to keep it',
      source: 'credits',
    });
    expect(again.statusCode).toBe(200);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      credits - openaiPrice,
    );
  });
});

describe('an image create while the S3 blob store is down', () => {
  const bed = useTestBed(async () => {
    // A real S3 client whose server has gone: its connections are refused.
    const server = await startS3TestServer('gone');
    await server.close();
    const blobs = new S3BlobStore(server.options);
    const started = await startImageBed({ blobs });
    return {
      ...started,
      async close() {
        await started.close();
        blobs.close();
      },
    };
  });

  it('answers 503 not_ready with retry-after, and charges nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const response = await createImage(bed.gateway, token, 's3-down-1', {
      model: 'picture-sync',
      prompt: 'nowhere to keep it',
      source: 'credits',
    });
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json().error.code).toBe('not_ready');
    expect(response.headers['retry-after']).toBe('5');
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });
});
