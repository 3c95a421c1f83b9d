import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { composeGateway, type Gateway } from '../../src/compose.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { readBlobStoreCredentials } from '../../src/config/read-blob-store-credentials.ts';
import { startS3TestServer, type S3TestServer } from '../contract/start-s3-test-server.ts';

describe('a gateway configured with the S3 blob store', () => {
  let server: S3TestServer;
  let gateway: Gateway;
  let dataDir: string;
  beforeAll(async () => {
    server = await startS3TestServer('gateway-files');
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-s3-gateway-'));
    const config = parseConfig({
      dataDir,
      storage: {
        blobStore: {
          kind: 's3',
          bucket: 'gateway-files',
          region: 'us-east-1',
          endpoint: server.options.endpoint,
          forcePathStyle: true,
          prefix: 'switchyard/',
          accessKeyIdEnv: 'TEST_S3_KEY_ID',
          secretAccessKeyEnv: 'TEST_S3_SECRET',
        },
      },
    });
    gateway = await composeGateway(config, {
      env: { TEST_S3_KEY_ID: 'S3RVER', TEST_S3_SECRET: 'S3RVER' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores through the configured bucket and serves the file over HTTP', async () => {
    const account = await gateway.operator.createAccount({ name: 's3' });
    const { token } = await gateway.operator.createToken({ accountId: account.id, name: 't' });
    const asset = await gateway.storage.storeAsset({
      accountId: account.id,
      name: 'image.png',
      contentType: 'image/png',
      source: 'image_result',
      body: Readable.from([Buffer.from('png bytes from s3')]),
    });
    const response = await gateway.app.inject({
      method: 'GET',
      url: `/v1/storage/assets/${asset.id}/content`,
      headers: { authorization: `Bearer ${token}`, range: 'bytes=4-8' },
    });
    expect(response.statusCode).toBe(206);
    expect(response.body).toBe('bytes');
    const deleted = await gateway.app.inject({
      method: 'DELETE',
      url: `/v1/storage/assets/${asset.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.statusCode).toBe(204);
  });
});

describe('readBlobStoreCredentials', () => {
  const base = { kind: 's3' as const, bucket: 'b', region: 'r' };

  it('reads the named variables, or leaves the SDK chain when none are named', () => {
    expect(readBlobStoreCredentials(base, {})).toBeUndefined();
    expect(
      readBlobStoreCredentials(
        { ...base, accessKeyIdEnv: 'A', secretAccessKeyEnv: 'S', sessionTokenEnv: 'T' },
        { A: 'id', S: 'secret', T: 'session' },
      ),
    ).toEqual({ accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: 'session' });
  });

  it('stops start-up on half a pair or an unset variable, naming the key, never the value', () => {
    expect(() => readBlobStoreCredentials({ ...base, accessKeyIdEnv: 'A' }, { A: 'id' })).toThrow(
      /secretAccessKeyEnv/,
    );
    expect(() =>
      readBlobStoreCredentials(
        { ...base, accessKeyIdEnv: 'A', secretAccessKeyEnv: 'S' },
        { A: 'x' },
      ),
    ).toThrow(/environment variable S is not set/);
  });

  it('refuses an unknown blob store kind or a missing bucket in the configuration', () => {
    expect(() => parseConfig({ storage: { blobStore: { kind: 'ftp' } } })).toThrow();
    expect(() => parseConfig({ storage: { blobStore: { kind: 's3', region: 'r' } } })).toThrow();
    expect(parseConfig({}).storage.blobStore).toEqual({ kind: 'filesystem' });
  });
});
