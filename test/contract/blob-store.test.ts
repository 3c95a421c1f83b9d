import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';
import { S3BlobStore } from '../../src/store/blob-s3/s3-blob-store.ts';
import { describeBlobStoreContract } from './blob-store.contract.ts';
import { startS3TestServer } from './start-s3-test-server.ts';

describeBlobStoreContract('filesystem', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'switchyard-blobs-'));
  return {
    store: await FilesystemBlobStore.open(root),
    close: () => rm(root, { recursive: true, force: true }),
  };
});

describeBlobStoreContract('S3 (s3rver)', async () => {
  const server = await startS3TestServer();
  const store = new S3BlobStore({ ...server.options, prefix: 'contract-prefix/' });
  return {
    store,
    async close() {
      store.close();
      await server.close();
    },
  };
});

describe('FilesystemBlobStore', () => {
  it('removes temporary files a killed writer left behind, once they are stale', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'switchyard-blobs-'));
    try {
      await FilesystemBlobStore.open(root);
      const incoming = path.join(root, '.incoming');
      await writeFile(path.join(incoming, 'stale'), 'half a file');
      await writeFile(path.join(incoming, 'fresh'), 'a write in progress');
      const dayAgo = new Date(Date.now() - 2 * 86_400_000);
      await utimes(path.join(incoming, 'stale'), dayAgo, dayAgo);

      await FilesystemBlobStore.open(root);
      expect(await readdir(incoming)).toEqual(['fresh']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('keeps every blob inside its root folder, in a path made of the key only', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'switchyard-blobs-'));
    try {
      const store = await FilesystemBlobStore.open(root);
      const { Readable } = await import('node:stream');
      await store.put('assets/ab/asset_ab12', Readable.from([Buffer.from('x')]), {
        contentType: 'text/plain',
      });
      expect(await readdir(path.join(root, 'assets', 'ab'))).toEqual(['asset_ab12']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
