// Child process of storage-crash.test.ts: stores a file and stops dead right after the blob is
// written, before the metadata commit, until the parent kills it.
import path from 'node:path';
import { Readable } from 'node:stream';

import type { BlobStore } from '../../src/features/storage/blob-store.ts';
import { StorageService } from '../../src/features/storage/storage-service.ts';
import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';

const [dataDir, accountId] = process.argv.slice(2) as [string, string];
const store = await openSqliteStore({ path: path.join(dataDir, 'store.db'), owner: true });
const inner = await FilesystemBlobStore.open(path.join(dataDir, 'blobs'));
const blobs: BlobStore = {
  get: (...args) => inner.get(...args),
  stat: (...args) => inner.stat(...args),
  delete: (...args) => inner.delete(...args),
  async put(key, body, options) {
    await inner.put(key, body, options);
    process.stdout.write(`written ${key}\n`);
    // Never returns: the commit that would follow does not happen before the kill.
    await new Promise(() => setInterval(() => {}, 1_000));
  },
};
const service = new StorageService({
  assets: store.assets,
  blobs,
  now: Date.now,
  settings: {
    quotaBytes: 1024 ** 3,
    retentionDays: 30,
    maxRetentionDays: 365,
    uploadTimeoutMs: 3_600_000,
    deleteRetryMs: 60_000,
    sweepBatchSize: 100,
  },
});
await service.storeAsset({
  accountId,
  name: 'result.png',
  contentType: 'image/png',
  source: 'image_result',
  body: Readable.from([Buffer.from('bytes that never became a file')]),
});
