import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ApiError } from '../../src/canonical/generation-error.ts';
import { startStorageTestBed, storageAdminToken, type StorageTestBed } from './storage-test-bed.ts';

const dayMs = 86_400_000;

async function listFilesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('storage routes: policy, cleanup and quota', () => {
  let bed: StorageTestBed;
  beforeAll(async () => {
    bed = await startStorageTestBed({ maxRetentionDays: 90 });
  });
  afterAll(async () => bed.close());

  const call = (method: 'GET' | 'PATCH' | 'POST', url: string, token: string, body?: unknown) =>
    bed.gateway.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  it('GET /v1/storage/policy gives the default retention and its maximum', async () => {
    const { token } = await bed.createToken();
    const response = await call('GET', '/v1/storage/policy', token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'storage.policy',
      retention_days: 30,
      max_retention_days: 90,
    });
  });

  it('PATCH accepts 1 and max_retention_days and refuses 0, max + 1, fractions and unknown fields', async () => {
    const { token } = await bed.createToken();
    for (const days of [1, 90]) {
      const response = await call('PATCH', '/v1/storage/policy', token, { retention_days: days });
      expect(response.statusCode).toBe(200);
      expect(response.json().retention_days).toBe(days);
    }
    for (const body of [
      { retention_days: 0 },
      { retention_days: 91 },
      { retention_days: 1.5 },
      { retention_days: '7' },
      {},
      { retention_days: 7, keep_forever: true },
      { retention_days: 7, apply_to_existing: 'yes' },
    ]) {
      const response = await call('PATCH', '/v1/storage/policy', token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
    const over = await call('PATCH', '/v1/storage/policy', token, { retention_days: 91 });
    expect(over.json().error.message).toMatch(/max_retention_days/);
    expect((await call('GET', '/v1/storage/policy', token)).json().retention_days).toBe(90);
  });

  it('a new retention applies to new files; existing dates stay unless apply_to_existing', async () => {
    const { token, accountId } = await bed.createToken();
    const preparedAt = Date.now() - 10 * dayMs;
    const old = await bed.storeFile(accountId, 'ten days old', { preparedAt });
    const recent = await bed.storeFile(accountId, 'fresh');

    await call('PATCH', '/v1/storage/policy', token, { retention_days: 20 });
    expect((await bed.gateway.storage.getAsset(accountId, old.id))?.deleteAt).toBe(old.deleteAt);
    const later = await bed.storeFile(accountId, 'after the change', { preparedAt });
    expect(later.deleteAt).toBe(preparedAt + 20 * dayMs);

    // Shortening to 5 days: the ten-day-old files are past it and go at once.
    const applied = await call('PATCH', '/v1/storage/policy', token, {
      retention_days: 5,
      apply_to_existing: true,
    });
    expect(applied.statusCode).toBe(200);
    expect(await bed.gateway.storage.getAsset(accountId, old.id)).toBeUndefined();
    expect(await bed.gateway.storage.getAsset(accountId, later.id)).toBeUndefined();
    const kept = await bed.gateway.storage.getAsset(accountId, recent.id);
    expect(kept?.deleteAt).toBe(recent.createdAt + 5 * dayMs);
    expect((await call('GET', '/v1/storage', token)).json()).toMatchObject({
      used_bytes: recent.size,
      file_count: 1,
    });

    // A longer retention never lengthens existing dates.
    await call('PATCH', '/v1/storage/policy', token, {
      retention_days: 60,
      apply_to_existing: true,
    });
    expect((await bed.gateway.storage.getAsset(accountId, recent.id))?.deleteAt).toBe(
      recent.createdAt + 5 * dayMs,
    );
  });

  it('cleanup dry run lists what would go and what is skipped, and changes nothing', async () => {
    const { token, accountId } = await bed.createToken();
    const stranger = await bed.createToken();
    const loose = await bed.storeFile(accountId, '12345');
    const kept = await bed.storeFile(accountId, 'protected', { protected: true });
    const foreign = await bed.storeFile(stranger.accountId, 'not yours');
    const response = await call('POST', '/v1/storage/cleanup', token, {
      asset_ids: [loose.id, kept.id, foreign.id, 'asset_unknown', loose.id],
      dry_run: true,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'storage.cleanup',
      dry_run: true,
      deleted: [loose.id],
      pending: [],
      skipped: [
        { id: kept.id, reason: 'protected' },
        { id: foreign.id, reason: 'not_found' },
        { id: 'asset_unknown', reason: 'not_found' },
      ],
      freed_bytes: 5,
    });
    expect(await bed.gateway.storage.getAsset(accountId, loose.id)).toBeDefined();
  });

  it('cleanup deletes the same way, never touches another account’s file, and frees the bytes', async () => {
    // What every account stores together, as GET /metrics reads it from the store.
    const storedBytes = async () => {
      const { body } = await bed.gateway.app.inject({ method: 'GET', url: '/metrics' });
      return Number(/^switchyard_storage_bytes (\d+)$/m.exec(body)?.[1]);
    };
    const before = await storedBytes();
    expect(before).toBeGreaterThanOrEqual(0);
    const { token, accountId } = await bed.createToken();
    const stranger = await bed.createToken();
    const first = await bed.storeFile(accountId, '12345');
    const second = await bed.storeFile(accountId, '678');
    const kept = await bed.storeFile(accountId, 'protected', { protected: true });
    const foreign = await bed.storeFile(stranger.accountId, 'not yours');
    expect(await storedBytes()).toBe(before + 5 + 3 + 9 + 9);
    const response = await call('POST', '/v1/storage/cleanup', token, {
      asset_ids: [first.id, second.id, kept.id, foreign.id],
      dry_run: false,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'storage.cleanup',
      dry_run: false,
      deleted: [first.id, second.id],
      pending: [],
      skipped: [
        { id: kept.id, reason: 'protected' },
        { id: foreign.id, reason: 'not_found' },
      ],
      freed_bytes: 8,
    });
    expect(await storedBytes()).toBe(before + 9 + 9);
    expect(await bed.gateway.storage.getAsset(stranger.accountId, foreign.id)).toBeDefined();
    expect(await bed.gateway.storage.getAsset(accountId, kept.id)).toBeDefined();
    expect((await call('GET', '/v1/storage', token)).json()).toMatchObject({
      used_bytes: kept.size,
      file_count: 1,
    });
  });

  it('cleanup answers 202 with pending ids when blob deletes fail; space frees once retried', async () => {
    const { token, accountId } = await bed.createToken();
    const asset = await bed.storeFile(accountId, 'stubborn');
    bed.blobs.failDeletes = true;
    try {
      const response = await call('POST', '/v1/storage/cleanup', token, {
        asset_ids: [asset.id],
        dry_run: false,
      });
      expect(response.statusCode).toBe(202);
      expect(response.json()).toMatchObject({ deleted: [], pending: [asset.id], freed_bytes: 0 });
    } finally {
      bed.blobs.failDeletes = false;
    }
    expect((await call('GET', '/v1/storage', token)).json()).toMatchObject({
      used_bytes: 8,
      file_count: 0,
    });
  });

  it('deleting files leaves the billing history alone', async () => {
    const { token, accountId } = await bed.createToken();
    await bed.gateway.operator.changeCredits({
      accountId,
      amount: 5_000_000,
      reason: 'grant before files',
      kind: 'grant',
    });
    const before = await bed.gateway.operator.accountSummary(accountId);
    const asset = await bed.storeFile(accountId, 'billable output');
    const response = await call('POST', '/v1/storage/cleanup', token, {
      asset_ids: [asset.id],
      dry_run: false,
    });
    expect(response.json().deleted).toEqual([asset.id]);
    const after = await bed.gateway.operator.accountSummary(accountId);
    expect(after.entries).toEqual(before.entries);
    expect(after.balance).toEqual(before.balance);
  });

  it('cleanup takes at most 100 ids and requires both fields', async () => {
    const { token } = await bed.createToken();
    const ids = (count: number) => Array.from({ length: count }, (_, index) => `asset_${index}`);
    const hundred = await call('POST', '/v1/storage/cleanup', token, {
      asset_ids: ids(100),
      dry_run: true,
    });
    expect(hundred.statusCode).toBe(200);
    expect(hundred.json().skipped).toHaveLength(100);
    for (const body of [
      { asset_ids: ids(101), dry_run: true },
      { asset_ids: ids(1) },
      { dry_run: false },
      { asset_ids: [''], dry_run: true },
      { asset_ids: 'asset_1', dry_run: true },
    ]) {
      const response = await call('POST', '/v1/storage/cleanup', token, body);
      expect(response.statusCode).toBe(400);
    }
  });

  it('refuses a write over quota with 413 storage_quota_exceeded and leaves no trace', async () => {
    const { token, accountId } = await bed.createToken();
    await bed.gateway.store.assets.setQuotaBytes(accountId, 10);
    await bed.storeFile(accountId, '123456');
    const before = await listFilesUnder(bed.blobRoot);
    const refused = bed.storeFile(accountId, '12345');
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'storage_quota_exceeded', status: 413 });
    expect(await listFilesUnder(bed.blobRoot)).toEqual(before);
    expect((await call('GET', '/v1/storage', token)).json()).toMatchObject({
      quota_bytes: 10,
      used_bytes: 6,
      file_count: 1,
    });
    // Exactly the remaining bytes still fit.
    await bed.storeFile(accountId, '1234');
    expect((await call('GET', '/v1/storage', token)).json()).toMatchObject({
      used_bytes: 10,
      available_bytes: 0,
    });
  });

  it('lets the operator set an account’s own quota and return it to the default', async () => {
    const { token, accountId } = await bed.createToken();
    const put = (account: string, body: unknown, credential = storageAdminToken) =>
      bed.gateway.app.inject({
        method: 'PUT',
        url: `/api/admin/accounts/${account}/storage-quota`,
        headers: { authorization: `Bearer ${credential}` },
        payload: body as Record<string, unknown>,
      });
    expect((await put(accountId, { quota_bytes: 10 }, token)).statusCode).toBe(401);
    expect((await put(accountId, { quota_bytes: -1 })).statusCode).toBe(400);
    expect((await put('account_unknown', { quota_bytes: 10 })).statusCode).toBe(404);
    expect((await put(accountId, { quota_bytes: 10 })).json()).toEqual({
      account_id: accountId,
      quota_bytes: 10,
    });
    expect((await call('GET', '/v1/storage', token)).json().quota_bytes).toBe(10);
    expect((await put(accountId, { quota_bytes: null })).statusCode).toBe(200);
    expect((await call('GET', '/v1/storage', token)).json().quota_bytes).toBe(5 * 1024 ** 3);
  });

  it('lets only one of two concurrent writes take the last free bytes', async () => {
    const { accountId } = await bed.createToken();
    await bed.gateway.store.assets.setQuotaBytes(accountId, 100);
    // Slow streams keep both writes in flight together, past the early quota check.
    const slowBody = () =>
      Readable.from(
        (async function* () {
          for (let index = 0; index < 6; index += 1) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            yield Buffer.alloc(10, 97);
          }
        })(),
      );
    const writes = await Promise.allSettled(
      [0, 1].map(() =>
        bed.gateway.storage.storeAsset({
          accountId,
          name: 'sixty.bin',
          contentType: 'application/octet-stream',
          source: 'transcription_upload',
          body: slowBody(),
        }),
      ),
    );
    expect(writes.filter((write) => write.status === 'fulfilled')).toHaveLength(1);
    const rejected = writes.find((write) => write.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({
      code: 'storage_quota_exceeded',
    });
    expect(await bed.gateway.storage.describeStorage(accountId)).toMatchObject({
      usedBytes: 60,
      fileCount: 1,
    });
  });
});
