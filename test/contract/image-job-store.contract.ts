import { describe, expect, it } from 'vitest';

import type { ImageJobStore, NewImageJob } from '../../src/features/images/image-job-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

const now = 1_800_000_000_000;

/** The ImageJobStore contract (src/features/images/image-job-store.ts) against one adapter. */
export function describeImageJobStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`ImageJobStore contract (${name})`, () => {
    const store = useContractStore(openStore);
    const jobs = (): ImageJobStore => store().imageJobs;

    async function newJob(overrides: Partial<NewImageJob> = {}): Promise<NewImageJob> {
      const account = await createTestAccount(store());
      const job: NewImageJob = {
        id: uniqueId('imggen'),
        accountId: account.id,
        apiKeyId: 'key_1',
        model: 'picture',
        queue: uniqueId('queue'),
        parameters: {
          prompt: 'p',
          aspectRatio: 'auto',
          resolution: '1K',
          outputFormat: 'png',
          quality: null,
          n: 1,
        },
        inputAssetIds: ['asset_a'],
        holdId: 'hold_1',
        pricePerImage: 40_000,
        createdAt: now,
        deadlineAt: now + 600_000,
        idempotencyKey: null,
        requestFingerprint: null,
        ...overrides,
      };
      await jobs().createJob(job);
      return job;
    }

    it('keeps a job per account and reads it back whole', async () => {
      const job = await newJob();
      expect(await jobs().getJob(job.accountId, job.id)).toMatchObject({
        ...job,
        state: 'queued',
        attempts: 0,
        upstreamJobId: null,
        resultAssetIds: null,
      });
      expect(await jobs().getJob('another-account', job.id)).toBeUndefined();
    });

    it('claims queued jobs oldest first, up to the limit, once', async () => {
      const queue = uniqueId('queue');
      const older = await newJob({ queue, createdAt: now });
      const newer = await newJob({ queue, createdAt: now + 1 });
      await newJob({ queue, createdAt: now + 2 });
      const claimed = await jobs().claimJobs({
        queue,
        owner: 'a',
        now,
        leaseUntil: now + 30_000,
        limit: 2,
      });
      expect(claimed.map((job) => job.id)).toEqual([older.id, newer.id]);
      expect(claimed[0]).toMatchObject({ state: 'running', attempts: 1 });
      const rest = await jobs().claimJobs({
        queue,
        owner: 'b',
        now,
        leaseUntil: now + 30_000,
        limit: 5,
      });
      expect(rest).toHaveLength(1);
    });

    it('never gives one job to two concurrent claims', async () => {
      const queue = uniqueId('queue');
      for (let index = 0; index < 10; index += 1) await newJob({ queue, createdAt: now + index });
      const claims = await Promise.all(
        ['a', 'b', 'c', 'd'].map((owner) =>
          jobs().claimJobs({ queue, owner, now, leaseUntil: now + 30_000, limit: 4 }),
        ),
      );
      const ids = claims.flat().map((job) => job.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(10);
    });

    it('lets only the lease owner write, and hands a lapsed or released lease to another', async () => {
      const [a, b, c, d] = [uniqueId('a'), uniqueId('b'), uniqueId('c'), uniqueId('d')];
      const job = await newJob();
      const claim = { queue: job.queue, now, leaseUntil: now + 30_000, limit: 1 };
      await jobs().claimJobs({ ...claim, owner: a });
      expect(await jobs().claimJobs({ ...claim, owner: b })).toHaveLength(0);
      const upstream = { deploymentIndex: 0, upstreamJobId: 'up-1', pollUrl: 'https://x/poll' };
      expect(await jobs().recordUpstreamJob(job.id, b, upstream)).toBe(false);
      expect(await jobs().recordUpstreamJob(job.id, a, upstream)).toBe(true);
      // The lease lapses: another worker takes the job over, with what was recorded.
      const later = now + 30_000;
      const [taken] = await jobs().claimJobs({
        ...claim,
        owner: b,
        now: later,
        leaseUntil: later + 30_000,
      });
      expect(taken).toMatchObject({
        upstreamJobId: 'up-1',
        pollUrl: 'https://x/poll',
        attempts: 2,
      });
      expect(await jobs().renewLease(job.id, a, later + 60_000)).toBe(false);
      expect(await jobs().recordResults(job.id, b, ['asset_r'])).toBe(true);
      expect(await jobs().releaseLeases(b)).toBe(1);
      const [resumed] = await jobs().claimJobs({
        ...claim,
        owner: c,
        now: later,
        leaseUntil: later + 30_000,
      });
      expect(resumed?.resultAssetIds).toEqual(['asset_r']);
      expect(await jobs().finishJob(job.id, b, { state: 'succeeded', charged: 1 }, later)).toBe(
        false,
      );
      expect(
        await jobs().finishJob(job.id, c, { state: 'succeeded', charged: 40_000 }, later),
      ).toBe(true);
      expect(await jobs().getJob(job.accountId, job.id)).toMatchObject({
        state: 'succeeded',
        charged: 40_000,
        finishedAt: later,
      });
      // A finished job is never claimed again.
      expect(
        await jobs().claimJobs({ ...claim, owner: d, now: later * 2, leaseUntil: later * 3 }),
      ).toHaveLength(0);
    });

    it('keeps the error of a failed job', async () => {
      const job = await newJob();
      await jobs().claimJobs({ queue: job.queue, owner: 'a', now, leaseUntil: now + 1, limit: 1 });
      const error = { code: 'upstream_error', message: 'boom', status: 502 };
      expect(await jobs().finishJob(job.id, 'a', { state: 'failed', error }, now)).toBe(true);
      expect(await jobs().getJob(job.accountId, job.id)).toMatchObject({ state: 'failed', error });
    });

    it('finds the newest job of a key inside the window, per account, until the key is forgotten', async () => {
      const key = uniqueId('keyhash');
      const older = await newJob({ idempotencyKey: key, requestFingerprint: 'fp', createdAt: now });
      const newer = await newJob({
        accountId: older.accountId,
        idempotencyKey: key,
        requestFingerprint: 'fp',
        createdAt: now + 5,
      });
      expect(await jobs().findJobByKey(older.accountId, key, now - 1)).toMatchObject({
        id: newer.id,
        idempotencyKey: key,
        requestFingerprint: 'fp',
      });
      expect(await jobs().findJobByKey(older.accountId, key, now + 5)).toBeUndefined();
      expect(await jobs().findJobByKey('another-account', key, now - 1)).toBeUndefined();
      await jobs().forgetKey(older.accountId, newer.id);
      expect((await jobs().findJobByKey(older.accountId, key, now - 1))?.id).toBe(older.id);
    });

    it("lists an account's jobs newest first, page by page, and no other account's", async () => {
      const account = await createTestAccount(store());
      const listed = [];
      for (let index = 0; index < 3; index += 1) {
        listed.push(await newJob({ accountId: account.id, createdAt: now + index }));
      }
      // Same time as the newest: the id breaks the tie, so no job is skipped or repeated.
      listed.push(await newJob({ accountId: account.id, createdAt: now + 2 }));
      await newJob();
      const expected = [...listed]
        .sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1))
        .map((job) => job.id);

      const first = await jobs().listJobs(account.id, { limit: 3 });
      expect(first.jobs.map((job) => job.id)).toEqual(expected.slice(0, 3));
      expect(first.hasMore).toBe(true);
      const second = await jobs().listJobs(account.id, { limit: 3, after: expected[2] as string });
      expect(second.jobs.map((job) => job.id)).toEqual(expected.slice(3));
      expect(second.hasMore).toBe(false);
      expect(second.jobs[0]).toMatchObject({ accountId: account.id, state: 'queued' });

      const foreign = await newJob();
      expect(await jobs().listJobs(account.id, { limit: 3, after: foreign.id })).toEqual({
        jobs: [],
        hasMore: false,
      });
    });
  });
}
