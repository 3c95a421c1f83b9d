import { describe, expect, it } from 'vitest';

import type { AssetStore, PendingAsset } from '../../src/features/storage/asset-store.ts';
import { blobKeyForAsset, createAssetId } from '../../src/features/storage/asset.ts';
import { createTestAccount } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';
import type { Store } from '../../src/store/store.ts';

const dayMs = 86_400_000;
const defaultQuotaBytes = 1_000;
const time = 1_700_000_000_000;

/** The AssetStore port's contract (docs/decisions/0050), run against SQLite and PostgreSQL. */
export function describeAssetStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`AssetStore contract (${name})`, () => {
    const store = useContractStore(openStore);
    const assets = (): AssetStore => store().assets;

    async function newAccount(): Promise<string> {
      return (await createTestAccount(store())).id;
    }

    function pending(accountId: string, overrides: Partial<PendingAsset> = {}): PendingAsset {
      const id = createAssetId();
      return {
        id,
        accountId,
        blobKey: blobKeyForAsset(id),
        name: 'picture.png',
        contentType: 'image/png',
        source: 'image_result',
        folder: 'images/results',
        protected: false,
        uploadDeadline: time + 3_600_000,
        ...overrides,
      };
    }

    /** Creates and commits a file of `size` bytes created at `createdAt`. */
    async function storeFile(
      accountId: string,
      size: number,
      options: { createdAt?: number; retentionDays?: number; protected?: boolean } = {},
    ) {
      const upload = pending(accountId, { protected: options.protected ?? false });
      await assets().createPendingAsset(upload);
      const createdAt = options.createdAt ?? time;
      const outcome = await assets().commitUpload({
        id: upload.id,
        accountId,
        size,
        sha256: 'a'.repeat(64),
        createdAt,
        deleteAt: createdAt + (options.retentionDays ?? 30) * dayMs,
        uploadDeadline: upload.uploadDeadline,
        defaultQuotaBytes,
      });
      return { upload, outcome };
    }

    it('keeps an upload invisible until its commit counts it, then shows every field', async () => {
      const accountId = await newAccount();
      const upload = pending(accountId, { protected: true, name: 'ü name.png' });
      await assets().createPendingAsset(upload);
      expect(await assets().getAsset(accountId, upload.id)).toBeUndefined();
      expect(await assets().listAssets(accountId, { limit: 10 })).toEqual([]);

      const outcome = await assets().commitUpload({
        id: upload.id,
        accountId,
        size: 123,
        sha256: 'b'.repeat(64),
        createdAt: time,
        deleteAt: time + dayMs,
        uploadDeadline: upload.uploadDeadline,
        defaultQuotaBytes,
      });
      expect(outcome).toBe('committed');
      expect(await assets().getAsset(accountId, upload.id)).toEqual({
        id: upload.id,
        accountId,
        name: 'ü name.png',
        size: 123,
        contentType: 'image/png',
        sha256: 'b'.repeat(64),
        source: 'image_result',
        folder: 'images/results',
        createdAt: time,
        deleteAt: time + dayMs,
        protected: true,
      });
      expect(await assets().getAccountStorage(accountId)).toEqual({
        usedBytes: 123,
        fileCount: 1,
        quotaBytes: null,
        retentionDays: null,
      });
    });

    it('sums the bytes every account uses, files and reservations alike', async () => {
      const before = await assets().totalUsedBytes();
      const one = await newAccount();
      const two = await newAccount();
      await storeFile(one, 70);
      await storeFile(two, 30);
      const id = createAssetId();
      const reserved = await assets().reserveSpace({
        id,
        accountId: two,
        blobKey: blobKeyForAsset(id),
        bytes: 5,
        until: time + 3_600_000,
        defaultQuotaBytes,
      });
      expect(reserved).toBe(true);
      expect(await assets().totalUsedBytes()).toBe(before + 105);
    });

    it('treats another account’s file exactly like an unknown id', async () => {
      const owner = await newAccount();
      const stranger = await newAccount();
      const { upload } = await storeFile(owner, 10);
      expect(await assets().getAsset(stranger, upload.id)).toBeUndefined();
      expect(await assets().setProtected(stranger, upload.id, true)).toBe(false);
      const begun = await assets().beginDeletion(stranger, upload.id, {
        now: time,
        claimUntil: time + 1,
      });
      expect(begun).toEqual({ outcome: 'not_found' });
      expect(await assets().getAsset(owner, upload.id)).toBeDefined();
    });

    it('refuses a commit past the quota and counts nothing for it', async () => {
      const accountId = await newAccount();
      await assets().setQuotaBytes(accountId, 100);
      expect((await storeFile(accountId, 60)).outcome).toBe('committed');
      const refused = await storeFile(accountId, 41);
      expect(refused.outcome).toBe('over_quota');
      expect(await assets().getAsset(accountId, refused.upload.id)).toBeUndefined();
      expect((await storeFile(accountId, 40)).outcome).toBe('committed');
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 100,
        fileCount: 2,
        quotaBytes: 100,
      });
      await assets().setQuotaBytes(accountId, null);
      expect((await assets().getAccountStorage(accountId)).quotaBytes).toBeNull();
    });

    it('lets concurrent commits take the free bytes only once', async () => {
      const accountId = await newAccount();
      await assets().setQuotaBytes(accountId, 100);
      const uploads = Array.from({ length: 10 }, () => pending(accountId));
      for (const upload of uploads) await assets().createPendingAsset(upload);
      const outcomes = await Promise.all(
        uploads.map((upload) =>
          assets().commitUpload({
            id: upload.id,
            accountId,
            size: 30,
            sha256: 'c'.repeat(64),
            createdAt: time,
            deleteAt: time + dayMs,
            uploadDeadline: upload.uploadDeadline,
            defaultQuotaBytes,
          }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'committed')).toHaveLength(3);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 90,
        fileCount: 3,
      });
    });

    it('lists newest first, ties broken by id, strictly after the cursor', async () => {
      const accountId = await newAccount();
      const created = [];
      for (const createdAt of [time, time + 5, time + 5, time + 9]) {
        created.push((await storeFile(accountId, 1, { createdAt })).upload.id);
      }
      const expected = [created[3], ...[created[1], created[2]].sort().reverse(), created[0]];
      const all = await assets().listAssets(accountId, { limit: 10 });
      expect(all.map((asset) => asset.id)).toEqual(expected);
      const second = all[1];
      const rest = await assets().listAssets(accountId, {
        limit: 10,
        after: { createdAt: second?.createdAt ?? 0, id: second?.id ?? '' },
      });
      expect(rest.map((asset) => asset.id)).toEqual(expected.slice(2));
      expect(await assets().listAssets(accountId, { limit: 2 })).toHaveLength(2);
    });

    it('deletes in two steps: hidden at once, bytes freed only when the blob is gone', async () => {
      const accountId = await newAccount();
      const kept = await storeFile(accountId, 7, { protected: true });
      const loose = await storeFile(accountId, 11);
      const options = { now: time, claimUntil: time + 60_000 };

      expect(await assets().beginDeletion(accountId, kept.upload.id, options)).toEqual({
        outcome: 'protected',
      });
      const begun = await assets().beginDeletion(accountId, loose.upload.id, options);
      expect(begun).toEqual({
        outcome: 'claimed',
        claim: { id: loose.upload.id, accountId, blobKey: loose.upload.blobKey, size: 11 },
      });
      expect(await assets().getAsset(accountId, loose.upload.id)).toBeUndefined();
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 18,
        fileCount: 1,
      });
      // Held by its deleter: a second deleter finds nothing to do.
      expect(await assets().beginDeletion(accountId, loose.upload.id, options)).toEqual({
        outcome: 'not_found',
      });
      expect(await assets().finishDeletion(loose.upload.id)).toBe(11);
      expect(await assets().finishDeletion(loose.upload.id)).toBe(0);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 7,
        fileCount: 1,
      });
    });

    it('retries a postponed deletion once its retry time has come', async () => {
      const accountId = await newAccount();
      const { upload } = await storeFile(accountId, 5);
      await assets().beginDeletion(accountId, upload.id, { now: time, claimUntil: time + 10 });
      await assets().postponeDeletion(upload.id, time + 1_000);
      const early = { now: time + 999, claimUntil: time + 2_000, limit: 10, accountId };
      expect(await assets().claimSweepBatch(early)).toEqual([]);
      const due = await assets().claimSweepBatch({ ...early, now: time + 1_000 });
      expect(due.map((claim) => claim.id)).toEqual([upload.id]);
    });

    it('sweeps expired unprotected files and abandoned uploads, each claimed by one sweeper', async () => {
      const accountId = await newAccount();
      const expired = await Promise.all(
        Array.from({ length: 6 }, () => storeFile(accountId, 2, { retentionDays: 1 })),
      );
      const guarded = await storeFile(accountId, 3, { retentionDays: 1, protected: true });
      const current = await storeFile(accountId, 4, { retentionDays: 10 });
      const abandoned = pending(accountId, { uploadDeadline: time + 1_000 });
      await assets().createPendingAsset(abandoned);

      const now = time + 2 * dayMs;
      const claim = { now, claimUntil: now + 60_000, limit: 4, accountId };
      const [first, second] = await Promise.all([
        assets().claimSweepBatch(claim),
        assets().claimSweepBatch(claim),
      ]);
      const third = await assets().claimSweepBatch(claim);
      const claimed = [...(first ?? []), ...(second ?? []), ...third].map((row) => row.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual(
        [...expired.map((file) => file.upload.id), abandoned.id].sort(),
      );
      // Claims hold until they lapse: nothing is handed out twice meanwhile.
      expect(await assets().claimSweepBatch(claim)).toEqual([]);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 12 + 3 + 4,
        fileCount: 2,
      });
      for (const id of claimed) await assets().finishDeletion(id);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 7,
        fileCount: 2,
      });
      expect(await assets().getAsset(accountId, guarded.upload.id)).toBeDefined();
      expect(await assets().getAsset(accountId, current.upload.id)).toBeDefined();
    });

    it('counts a space reservation at once, moves drawn bytes to files, frees the rest', async () => {
      const accountId = await newAccount();
      await assets().setQuotaBytes(accountId, 100);
      const reservation = (id: string, bytes: number, until = time + 1_000) => ({
        id,
        accountId,
        blobKey: blobKeyForAsset(id),
        bytes,
        until,
        defaultQuotaBytes,
      });
      const first = createAssetId();
      expect(await assets().reserveSpace(reservation(first, 60))).toBe(true);
      expect(await assets().reserveSpace(reservation(createAssetId(), 41))).toBe(false);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 60,
        fileCount: 0,
      });
      // Invisible: neither a file nor deletable.
      expect(await assets().getAsset(accountId, first)).toBeUndefined();
      expect(await assets().listAssets(accountId, { limit: 10 })).toEqual([]);
      // A file drawn from the reservation is not counted twice, even with the quota in use.
      expect((await storeFile(accountId, 40)).outcome).toBe('committed');
      const drawn = pending(accountId);
      await assets().createPendingAsset(drawn);
      const commit = (size: number, upload = drawn) =>
        assets().commitUpload({
          id: upload.id,
          accountId,
          size,
          sha256: 'd'.repeat(64),
          createdAt: time,
          deleteAt: time + dayMs,
          uploadDeadline: upload.uploadDeadline,
          defaultQuotaBytes,
          reservationId: first,
        });
      expect(await commit(25)).toBe('committed');
      expect(await assets().getReservedBytes(accountId, first)).toBe(35);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 100,
        fileCount: 2,
      });
      // Beyond what is left, the rest meets the quota.
      const larger = pending(accountId);
      await assets().createPendingAsset(larger);
      expect(await commit(36, larger)).toBe('over_quota');
      expect(await assets().getReservedBytes(accountId, first)).toBe(35);
      await assets().releaseReservation(accountId, first);
      await assets().releaseReservation(accountId, first);
      expect(await assets().getReservedBytes(accountId, first)).toBe(0);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 65,
        fileCount: 2,
      });
      // An owner that never releases: the sweeper frees the bytes once `until` passed.
      const lapsed = createAssetId();
      expect(await assets().reserveSpace(reservation(lapsed, 30, time + 10))).toBe(true);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({ usedBytes: 95 });
      const claim = { now: time + 10, claimUntil: time + 60_000, limit: 10, accountId };
      const claimed = await assets().claimSweepBatch(claim);
      expect(claimed).toEqual([
        { id: lapsed, accountId, blobKey: blobKeyForAsset(lapsed), size: 30 },
      ]);
      expect(await assets().finishDeletion(lapsed)).toBe(30);
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 65,
        fileCount: 2,
      });
    });

    it('refuses the commit of an upload the sweeper already took as abandoned', async () => {
      const accountId = await newAccount();
      const upload = pending(accountId, { uploadDeadline: time + 1 });
      await assets().createPendingAsset(upload);
      const taken = await assets().claimSweepBatch({
        now: time + 2,
        claimUntil: time + 60_000,
        limit: 10,
        accountId,
      });
      expect(taken.map((claim) => claim.id)).toEqual([upload.id]);
      const outcome = await assets().commitUpload({
        id: upload.id,
        accountId,
        size: 9,
        sha256: 'd'.repeat(64),
        createdAt: time,
        deleteAt: time + dayMs,
        uploadDeadline: upload.uploadDeadline,
        defaultQuotaBytes,
      });
      expect(outcome).toBe('gone');
      expect(await assets().getAccountStorage(accountId)).toMatchObject({
        usedBytes: 0,
        fileCount: 0,
      });
    });

    it('shortens existing deletion times only when asked, and never lengthens them', async () => {
      const accountId = await newAccount();
      const { upload } = await storeFile(accountId, 1, { retentionDays: 30 });
      await assets().setRetentionDays(accountId, 10, { applyToExisting: false });
      expect((await assets().getAsset(accountId, upload.id))?.deleteAt).toBe(time + 30 * dayMs);
      expect((await assets().getAccountStorage(accountId)).retentionDays).toBe(10);
      await assets().setRetentionDays(accountId, 10, { applyToExisting: true });
      expect((await assets().getAsset(accountId, upload.id))?.deleteAt).toBe(time + 10 * dayMs);
      await assets().setRetentionDays(accountId, 60, { applyToExisting: true });
      expect((await assets().getAsset(accountId, upload.id))?.deleteAt).toBe(time + 10 * dayMs);
    });

    it('sets and clears protection on a visible file', async () => {
      const accountId = await newAccount();
      const { upload } = await storeFile(accountId, 1);
      expect(await assets().setProtected(accountId, upload.id, true)).toBe(true);
      expect((await assets().getAsset(accountId, upload.id))?.protected).toBe(true);
      expect(await assets().setProtected(accountId, upload.id, false)).toBe(true);
      expect((await assets().getAsset(accountId, upload.id))?.protected).toBe(false);
      expect(await assets().setProtected(accountId, createAssetId(), true)).toBe(false);
    });
  });
}
