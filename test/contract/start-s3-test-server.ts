import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import S3rver from 's3rver';

import type { S3BlobStoreOptions } from '../../src/store/blob-s3/s3-blob-store.ts';

export interface S3TestServer {
  /** Options for an S3BlobStore that talks to this server. */
  options: S3BlobStoreOptions;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server (s3rver) on a free loopback port, with a fresh bucket in a
 * temporary folder. s3rver accepts any signature made with its fixed test credentials.
 */
export async function startS3TestServer(bucket = 'switchyard-test'): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(tmpdir(), 'switchyard-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  return {
    options: {
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${address.port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
