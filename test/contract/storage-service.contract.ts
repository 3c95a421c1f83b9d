import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { blobKeyForAsset, createAssetId } from '../../src/features/storage/asset.ts';
import type { BlobStore } from '../../src/features/storage/blob-store.ts';
import { startStorageSweeper } from '../../src/features/storage/start-storage-sweeper.ts';
import { StorageService } from '../../src/features/storage/storage-service.ts';
import { createTestAccount } from './store-contract-fixtures.ts';
import type { Store } from '../../src/store/store.ts';

export interface StoragePairing {
  store: Store;
  blobs: BlobStore;
  close(): Promise<void>;
}

const dayMs = 86_400_000;
const uploadTimeoutMs = 3_600_000;
const deleteRetryMs = 60_000;

/**
 * The storage service over each shipped BlobStore + AssetStore pairing:
 * filesystem + SQLite and S3 + PostgreSQL. The clock is injected, so retention, retries and
 * upload deadlines are crossed without waiting.
 */
export function describeStorageServiceContract(
  name: string,
  openPairing: () => Promise<StoragePairing>,
): void {
  describe(`StorageService on ${name}`, () => {
    let pairing: StoragePairing;
    let clock = 1_800_000_000_000;
    let failDeletes = false;
    let service: StorageService;
    beforeAll(async () => {
      pairing = await openPairing();
      const inner = pairing.blobs;
      const blobs: BlobStore = {
        put: (...args) => inner.put(...args),
        get: (...args) => inner.get(...args),
        stat: (...args) => inner.stat(...args),
        delete: async (key) => {
          if (failDeletes) throw new Error('blob store unreachable');
          await inner.delete(key);
        },
      };
      service = new StorageService({
        assets: pairing.store.assets,
        blobs,
        now: () => clock,
        settings: {
          quotaBytes: 1024 ** 3,
          retentionDays: 1,
          maxRetentionDays: 30,
          uploadTimeoutMs,
          deleteRetryMs,
          sweepBatchSize: 2,
        },
      });
    });
    afterAll(async () => pairing?.close());

    const newAccount = async () => (await createTestAccount(pairing.store)).id;
    const store = (accountId: string, text: string, protectedFile = false) =>
      service.storeAsset({
        accountId,
        name: 'note.txt',
        contentType: 'text/plain; charset=utf-8',
        source: 'transcription_upload',
        body: Readable.from([Buffer.from(text)]),
        protected: protectedFile,
      });

    it('stores a stream and reads it back whole and by range, with its SHA-256', async () => {
      const accountId = await newAccount();
      const asset = await store(accountId, 'stored through the service');
      expect(asset).toMatchObject({
        size: 26,
        sha256: createHash('sha256').update('stored through the service').digest('hex'),
        folder: 'audio/uploads',
        createdAt: clock,
        deleteAt: clock + dayMs,
      });
      const whole = await service.openContent(asset);
      expect((await buffer(whole as Readable)).toString()).toBe('stored through the service');
      const part = await service.openContent(asset, { start: 7, end: 13 });
      expect((await buffer(part as Readable)).toString()).toBe('through');
      await service.deleteAsset(accountId, asset.id);
      // A download that looked the file up just before a delete finds nothing, not an error.
      expect(await service.openContent(asset)).toBeUndefined();
    });

    it('sweeps expired files in bounded batches, keeping protected ones until released', async () => {
      const accountId = await newAccount();
      const expiring = [];
      for (let index = 0; index < 5; index += 1) expiring.push(await store(accountId, `x${index}`));
      const guarded = await store(accountId, 'job input', true);
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 0, pending: 0 });

      clock += dayMs;
      // Batches of two: one run of at most two batches leaves the fifth file for the next run.
      expect(await service.sweepOnce({ accountId, maxBatches: 2 })).toEqual({
        deleted: 4,
        pending: 0,
      });
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 1, pending: 0 });
      for (const asset of expiring) {
        expect(await pairing.blobs.stat(blobKeyForAsset(asset.id))).toBeUndefined();
      }
      expect(await service.getAsset(accountId, guarded.id)).toBeDefined();
      expect(await service.describeStorage(accountId)).toMatchObject({
        usedBytes: guarded.size,
        fileCount: 1,
      });

      await service.setProtected(accountId, guarded.id, false);
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 1, pending: 0 });
      expect(await pairing.blobs.stat(blobKeyForAsset(guarded.id))).toBeUndefined();
      expect(await service.describeStorage(accountId)).toMatchObject({ usedBytes: 0 });
    });

    it('retries a deletion whose blob delete failed, and frees the space only then', async () => {
      const accountId = await newAccount();
      const asset = await store(accountId, 'twelve bytes');
      failDeletes = true;
      try {
        expect(await service.deleteAsset(accountId, asset.id)).toEqual({ outcome: 'pending' });
        clock += deleteRetryMs;
        expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 0, pending: 1 });
      } finally {
        failDeletes = false;
      }
      expect(await service.describeStorage(accountId)).toMatchObject({
        usedBytes: 12,
        fileCount: 0,
      });
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 0, pending: 0 });
      clock += deleteRetryMs;
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 1, pending: 0 });
      expect(await pairing.blobs.stat(blobKeyForAsset(asset.id))).toBeUndefined();
      expect(await service.describeStorage(accountId)).toMatchObject({ usedBytes: 0 });
    });

    it('removes the blob of an upload that never committed, once its deadline passed', async () => {
      const accountId = await newAccount();
      // What a process that died between the blob write and the commit leaves behind.
      const id = createAssetId();
      await pairing.store.assets.createPendingAsset({
        id,
        accountId,
        blobKey: blobKeyForAsset(id),
        name: 'orphan.bin',
        contentType: 'application/octet-stream',
        source: 'image_input',
        folder: 'images/inputs',
        protected: false,
        uploadDeadline: clock + uploadTimeoutMs,
      });
      await pairing.blobs.put(blobKeyForAsset(id), Readable.from([Buffer.from('orphan')]), {
        contentType: 'application/octet-stream',
      });
      expect(await service.getAsset(accountId, id)).toBeUndefined();
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 0, pending: 0 });
      expect(await pairing.blobs.stat(blobKeyForAsset(id))).toEqual({ size: 6 });

      clock += uploadTimeoutMs;
      expect(await service.sweepOnce({ accountId })).toEqual({ deleted: 1, pending: 0 });
      expect(await pairing.blobs.stat(blobKeyForAsset(id))).toBeUndefined();
      expect(await service.describeStorage(accountId)).toMatchObject({
        usedBytes: 0,
        fileCount: 0,
      });
    });

    it('runs the sweep on its interval', async () => {
      const accountId = await newAccount();
      const asset = await store(accountId, 'soon gone');
      clock += dayMs;
      const errors: unknown[] = [];
      const sweeper = startStorageSweeper({
        service,
        intervalMs: 20,
        onError: (error) => errors.push(error),
      });
      try {
        await expect
          .poll(async () => service.getAsset(accountId, asset.id), { timeout: 5_000 })
          .toBeUndefined();
      } finally {
        await sweeper.stop();
      }
      expect(errors).toEqual([]);
      expect(await pairing.blobs.stat(blobKeyForAsset(asset.id))).toBeUndefined();
    });
  });
}
