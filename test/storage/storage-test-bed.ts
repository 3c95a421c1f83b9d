import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { composeGateway, type Gateway } from '../../src/compose.ts';
import type { Permission } from '../../src/auth/permissions.ts';
import type { Asset, AssetSource } from '../../src/features/storage/asset.ts';
import type { BlobStore } from '../../src/features/storage/blob-store.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';

export const storageAdminToken = 'storage-admin-secret';

/** A filesystem BlobStore whose deletes can be made to fail, as an unreachable store would. */
export class FlakyBlobStore implements BlobStore {
  failDeletes = false;
  readonly inner: BlobStore;
  constructor(inner: BlobStore) {
    this.inner = inner;
  }
  put: BlobStore['put'] = (...args) => this.inner.put(...args);
  get: BlobStore['get'] = (...args) => this.inner.get(...args);
  stat: BlobStore['stat'] = (...args) => this.inner.stat(...args);
  delete: BlobStore['delete'] = async (key) => {
    if (this.failDeletes) throw new Error('blob store unreachable');
    return this.inner.delete(key);
  };
}

export interface StorageTestBed {
  gateway: Gateway;
  blobs: FlakyBlobStore;
  blobRoot: string;
  createToken(permissions?: Permission[]): Promise<{ token: string; accountId: string }>;
  storeFile(
    accountId: string,
    content: string | Buffer,
    options?: {
      name?: string;
      contentType?: string;
      source?: AssetSource;
      protected?: boolean;
      preparedAt?: number;
    },
  ): Promise<Asset>;
  close(): Promise<void>;
}

/** A gateway on a fresh SQLite file and data dir, its blob deletes switchable to failing. */
export async function startStorageTestBed(
  storage: Record<string, unknown> = {},
): Promise<StorageTestBed> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-storage-'));
  const config = parseConfig({ dataDir, storage });
  const blobRoot = path.join(dataDir, 'blobs');
  const blobs = new FlakyBlobStore(await FilesystemBlobStore.open(blobRoot));
  const gateway = await composeGateway(config, {
    env: { SWITCHYARD_ADMIN_TOKEN: storageAdminToken },
    blobs,
  });
  return {
    gateway,
    blobs,
    blobRoot,
    async createToken(permissions = ['inference:create']) {
      const account = await gateway.operator.createAccount({
        name: `storage ${randomUUID()}`,
        isAdmin: false,
      });
      const created = await gateway.operator.createToken({
        accountId: account.id,
        name: 'storage token',
        permissions,
        expiresAt: null,
        allowedModels: null,
      });
      return { token: created.token, accountId: account.id };
    },
    storeFile(accountId, content, options = {}) {
      return gateway.storage.storeAsset({
        accountId,
        name: options.name ?? 'file.txt',
        contentType: options.contentType ?? 'text/plain',
        source: options.source ?? 'image_result',
        body: Readable.from([Buffer.from(content)]),
        ...(options.protected === undefined ? {} : { protected: options.protected }),
        ...(options.preparedAt === undefined ? {} : { preparedAt: options.preparedAt }),
      });
    },
    async close() {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
