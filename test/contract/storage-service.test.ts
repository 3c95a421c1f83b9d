import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';
import { S3BlobStore } from '../../src/store/blob-s3/s3-blob-store.ts';
import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
} from '../support/isolated-test-stores.ts';
import { startS3TestServer } from './start-s3-test-server.ts';
import { describeStorageServiceContract } from './storage-service.contract.ts';

describeStorageServiceContract('filesystem + SQLite', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'switchyard-blobs-'));
  const store = await openTemporarySqliteStore(true);
  return {
    store,
    blobs: await FilesystemBlobStore.open(root),
    async close() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

describeStorageServiceContract('S3 (s3rver) + PostgreSQL', async () => {
  const server = await startS3TestServer();
  const store = await openIsolatedPostgresStore();
  const blobs = new S3BlobStore(server.options);
  return {
    store,
    blobs,
    async close() {
      blobs.close();
      await store.close();
      await server.close();
    },
  };
});
