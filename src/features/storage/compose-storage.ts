import path from 'node:path';

import { Gauge, type Registry } from 'prom-client';

import type { Authenticator } from '../../auth/authenticator.ts';
import { readBlobStoreCredentials } from '../../config/read-blob-store-credentials.ts';
import type { StorageConfig } from '../../config/storage-config-schema.ts';
import type { BlobStore } from './blob-store.ts';
import type { AssetStore } from './asset-store.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import { startStorageSweeper, type StorageSweeper } from './start-storage-sweeper.ts';
import { storageRoutes } from './storage-routes.ts';
import { StorageService } from './storage-service.ts';

export interface StorageFeature extends GatewayFeature {
  /** What other features call to store files and to protect them while a job runs. */
  service: StorageService;
}

/** Chooses the configured BlobStore; the S3 client is loaded only when configured. */
async function openBlobStore(
  config: StorageConfig,
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ blobs: BlobStore; close(): void }> {
  const settings = config.blobStore;
  if (settings.kind === 'filesystem') {
    const { FilesystemBlobStore } =
      await import('../../store/blob-filesystem/filesystem-blob-store.ts');
    const root = settings.path ?? path.join(dataDir, 'blobs');
    return { blobs: await FilesystemBlobStore.open(path.resolve(dataDir, root)), close() {} };
  }
  const { S3BlobStore } = await import('../../store/blob-s3/s3-blob-store.ts');
  const credentials = readBlobStoreCredentials(settings, env);
  const store = new S3BlobStore({
    bucket: settings.bucket,
    region: settings.region,
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    ...(settings.forcePathStyle === undefined ? {} : { forcePathStyle: settings.forcePathStyle }),
    ...(settings.prefix === undefined ? {} : { prefix: settings.prefix }),
    ...(credentials === undefined ? {} : { credentials }),
  });
  return { blobs: store, close: () => store.close() };
}

/** File storage (docs/decisions/0050): service, routes and the sweeper, from the shared parts. */
export async function composeStorage(options: {
  config: StorageConfig;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  assets: AssetStore;
  authenticator: Authenticator;
  now: () => number;
  onSweepError: (error: unknown) => void;
  /** A BlobStore chosen by the caller (tests); otherwise the configured one. */
  blobs?: BlobStore;
  /** Where `switchyard_storage_bytes` goes (GET /metrics). */
  metrics?: Registry;
}): Promise<StorageFeature> {
  const { config, assets } = options;
  if (options.metrics !== undefined) {
    new Gauge({
      name: 'switchyard_storage_bytes',
      help: "Bytes counted against the accounts' storage quotas: files, pending deletions, reservations.",
      registers: [options.metrics],
      // Read from the store when scraped; a store that does not answer leaves the last value
      // (GET /readyz says it is down) rather than failing the whole scrape.
      async collect() {
        try {
          this.set(await assets.totalUsedBytes());
        } catch {
          // The last value stands.
        }
      },
    });
  }
  const opened =
    options.blobs === undefined
      ? await openBlobStore(config, options.dataDir, options.env)
      : { blobs: options.blobs, close() {} };
  const service = new StorageService({
    assets: options.assets,
    blobs: opened.blobs,
    now: options.now,
    settings: {
      quotaBytes: config.quotaBytes,
      retentionDays: Math.min(config.retentionDays, config.maxRetentionDays),
      maxRetentionDays: config.maxRetentionDays,
      uploadTimeoutMs: config.uploadTimeoutSeconds * 1000,
      deleteRetryMs: config.deleteRetrySeconds * 1000,
      sweepBatchSize: config.sweepBatchSize,
    },
  });
  let sweeper: StorageSweeper | undefined;
  return {
    service,
    routes: [
      (app) => storageRoutes(app, { authenticator: options.authenticator, storage: service }),
    ],
    start() {
      sweeper = startStorageSweeper({
        service,
        intervalMs: config.sweepIntervalSeconds * 1000,
        onError: options.onSweepError,
      });
    },
    async stop() {
      await sweeper?.stop();
      opened.close();
    },
  };
}
