import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { StorageService } from '../../src/features/storage/storage-service.ts';
import { FilesystemBlobStore } from '../../src/store/blob-filesystem/filesystem-blob-store.ts';
import { createTestAccount } from '../contract/store-contract-fixtures.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';

/** Runs the child until it reports the written blob key, then kills it with SIGKILL. */
function runChildUntilBlobWritten(dataDir: string, accountId: string): Promise<string> {
  const script = fileURLToPath(
    new URL('./crash-between-blob-and-commit-child.ts', import.meta.url),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, accountId], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('written '));
      if (line === undefined) return;
      child.once('exit', () => resolve(line.slice('written '.length)));
      child.kill('SIGKILL');
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}) early: ${errors}`));
    });
  });
}

describe('a process killed between the blob write and the metadata commit', () => {
  it('leaves nothing the user can see, and the sweeper removes the orphan blob', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-crash-'));
    try {
      const setup = await openSqliteStore({ path: path.join(dataDir, 'store.db') });
      const { id: accountId } = await createTestAccount(setup);
      await setup.close();

      const blobKey = await runChildUntilBlobWritten(dataDir, accountId);

      // The restarted gateway: same files, a clock we move past the upload deadline.
      const store = await openSqliteStore({ path: path.join(dataDir, 'store.db'), owner: true });
      try {
        const blobs = await FilesystemBlobStore.open(path.join(dataDir, 'blobs'));
        let clock = Date.now();
        const service = new StorageService({
          assets: store.assets,
          blobs,
          now: () => clock,
          settings: {
            quotaBytes: 1024 ** 3,
            retentionDays: 30,
            maxRetentionDays: 365,
            uploadTimeoutMs: 3_600_000,
            deleteRetryMs: 60_000,
            sweepBatchSize: 100,
          },
        });
        expect(await blobs.stat(blobKey)).toEqual({ size: 30 });
        expect((await service.listAssets(accountId, { limit: 200 })).data).toEqual([]);
        const assetId = blobKey.split('/').at(-1) as string;
        expect(await service.getAsset(accountId, assetId)).toBeUndefined();
        expect(await service.describeStorage(accountId)).toMatchObject({
          usedBytes: 0,
          fileCount: 0,
        });

        // Within the deadline the upload might still be running elsewhere: it stays.
        expect(await service.sweepOnce()).toEqual({ deleted: 0, pending: 0 });
        expect(await blobs.stat(blobKey)).toBeDefined();

        clock += 3_600_000 + 1;
        expect(await service.sweepOnce()).toEqual({ deleted: 1, pending: 0 });
        expect(await blobs.stat(blobKey)).toBeUndefined();
        expect(await service.describeStorage(accountId)).toMatchObject({ usedBytes: 0 });
      } finally {
        await store.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
