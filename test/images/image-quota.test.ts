import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import {
  bflPrice,
  createImage,
  openaiPrice,
  pollUntilFinished,
  startImageBed,
} from './image-test-bed.ts';
import { encodePng, pixelsFor } from './png-bytes.ts';

const credits = 10_000_000;
/** The worst case counted per result image (docs/decisions/0117). */
const maxResultImageBytes = 10_000;

/** docs/decisions/0117: a result's space is reserved before the upstream is called. */
describe('image generation against the storage quota', () => {
  const bed = useTestBed(() => startImageBed({ images: { maxResultImageBytes } }));
  const storageOf = (accountId: string) => bed.gateway.storage.describeStorage(accountId);

  async function tokenWithQuota(quotaBytes: number) {
    const created = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    await bed.gateway.store.assets.setQuotaBytes(created.accountId, quotaBytes);
    return created;
  }

  it('refuses with 413 before any upstream call when the results would not fit', async () => {
    const { token, accountId } = await tokenWithQuota(2 * maxResultImageBytes - 1);
    const before = bed.fake.requests.length;
    const refused = await createImage(bed.gateway, token, 'full-1', {
      model: 'picture-sync',
      prompt: 'two of them',
      source: 'credits',
      n: 2,
    });
    expect(refused.statusCode).toBe(413);
    expect(refused.json().error).toMatchObject({
      code: 'storage_quota_exceeded',
      message: expect.stringContaining(
        `needs up to ${2 * maxResultImageBytes} bytes of storage for its results and the account has ${2 * maxResultImageBytes - 1} left`,
      ),
    });
    expect(bed.fake.requests.length).toBe(before);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
    expect(await storageOf(accountId)).toMatchObject({ usedBytes: 0, fileCount: 0 });

    // One fits: only the stored image stays counted, the rest of the reservation is free again.
    const served = await createImage(bed.gateway, token, 'full-2', {
      model: 'picture-sync',
      prompt: 'one of them',
      source: 'credits',
    });
    expect(served.statusCode).toBe(200);
    const [image] = served.json().images;
    expect(await storageOf(accountId)).toMatchObject({ usedBytes: image.size, fileCount: 1 });
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      credits - openaiPrice,
    );
  });

  it('lets the same key generate once space is freed: a full quota is no final answer', async () => {
    const { token, accountId } = await tokenWithQuota(maxResultImageBytes - 1);
    const body = { model: 'picture-sync', prompt: 'later', source: 'credits' };
    const refused = await createImage(bed.gateway, token, 'retry-after-space', body);
    expect(refused.statusCode).toBe(413);

    await bed.gateway.store.assets.setQuotaBytes(accountId, 10 * maxResultImageBytes);
    const served = await createImage(bed.gateway, token, 'retry-after-space', body);
    expect(served.statusCode).toBe(200);
    expect(served.headers['idempotent-replayed']).toBeUndefined();
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      credits - openaiPrice,
    );
  });

  it('keeps no reference image of a create refused on quota', async () => {
    const sketch = encodePng(8, 8, pixelsFor(8, 8, 3));
    // The results fit, the first reference image fits, the second does not.
    const { token, accountId } = await tokenWithQuota(maxResultImageBytes + sketch.length + 1);
    const before = bed.fake.requests.length;
    const refused = await createImage(bed.gateway, token, 'inputs-1', {
      model: 'picture-job',
      prompt: 'from two sketches',
      source: 'credits',
      input_images: [1, 2].map((index) => ({
        name: `sketch-${index}.png`,
        media_type: 'image/png',
        data: sketch.toString('base64'),
      })),
    });
    expect(refused.statusCode).toBe(413);
    expect(bed.fake.requests.length).toBe(before);
    expect(await storageOf(accountId)).toMatchObject({ usedBytes: 0, fileCount: 0 });
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });

  it('counts the reservation while a job runs and frees it when the job ends', async () => {
    const { token, accountId } = await tokenWithQuota(maxResultImageBytes);
    bed.fake.holdJobs = true;
    const accepted = await createImage(bed.gateway, token, 'job-1', {
      model: 'picture-job',
      prompt: 'a fox',
      source: 'credits',
    });
    expect(accepted.statusCode).toBe(202);
    expect(await storageOf(accountId)).toMatchObject({
      usedBytes: maxResultImageBytes,
      fileCount: 0,
    });
    // A second job finds no room while the first one's results are reserved.
    const second = await createImage(bed.gateway, token, 'job-2', {
      model: 'picture-job',
      prompt: 'another fox',
      source: 'credits',
    });
    expect(second.statusCode).toBe(413);
    bed.fake.holdJobs = false;
    const finished = await pollUntilFinished(bed.gateway, token, accepted.json().id);
    const [image] = finished.json().images;
    expect(await storageOf(accountId)).toMatchObject({ usedBytes: image.size, fileCount: 1 });
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(credits - bflPrice);
  });

  it('frees the reservation of a job that failed', async () => {
    const { token, accountId } = await tokenWithQuota(maxResultImageBytes);
    bed.fake.failures.push({ status: 500 });
    const failed = await createImage(bed.gateway, token, 'fails-1', {
      model: 'picture-sync',
      prompt: 'fails',
      source: 'credits',
    });
    expect(failed.statusCode).toBe(502);
    expect(await storageOf(accountId)).toMatchObject({ usedBytes: 0, fileCount: 0 });
  });
});
