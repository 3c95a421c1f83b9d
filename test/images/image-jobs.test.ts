import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { startFakeImageUpstream } from './fake-image-upstream.ts';
import { encodePng, pixelsFor } from './png-bytes.ts';
import {
  bflPrice,
  createImage,
  getWithToken,
  pollUntilFinished,
  startImageBed,
} from './image-test-bed.ts';

const credits = 10_000_000;

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not reached');
}

/** `switchyard_image_jobs_total` by state, from GET /metrics. */
async function jobCounts(gateway: Pick<TestGateway, 'app'>): Promise<Record<string, number>> {
  const { body } = await gateway.app.inject({ method: 'GET', url: '/metrics' });
  const counts: Record<string, number> = {};
  for (const [, state, value] of body.matchAll(
    /^switchyard_image_jobs_total\{state="(\w+)"\} (\d+)$/gm,
  ))
    counts[state as string] = Number(value);
  return counts;
}

describe('image jobs survive a gateway restart', () => {
  it('resumes polling the stored upstream job: finished once, charged once', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-images-'));
    const file = path.join(folder, 'store.db');
    const fake = await startFakeImageUpstream();
    try {
      fake.holdJobs = true;
      let store = await openSqliteStore({ path: file, owner: true });
      const first = await startImageBed({ store, fake, images: { syncWaitMs: 50 } });
      const { token, accountId } = await first.gateway.createToken({
        credits,
        permissions: ['image:create'],
      });
      const accepted = await createImage(first.gateway, token, 'restart-1', {
        model: 'picture-job',
        prompt: 'across a restart',
        source: 'credits',
      });
      expect(accepted.statusCode).toBe(202);
      const jobId = accepted.json().id as string;
      await until(() => fake.requests.some((request) => request.path === '/v1/get_result'));
      // Each process counts the steps it took (switchyard_image_jobs_total).
      expect(await jobCounts(first.gateway)).toEqual({ queued: 1, running: 1 });
      await first.close();
      await store.close();

      // A new process: the in-memory holds of the old one are gone (docs/decisions/0014).
      store = await openSqliteStore({ path: file, owner: true });
      const second = await startImageBed({ store, fake, images: { syncWaitMs: 50 } });
      fake.holdJobs = false;
      const done = await pollUntilFinished(second.gateway, token, jobId);
      expect(done.json().status).toBe('succeeded');
      expect(fake.submits('bfl')).toBe(1);
      const download = await getWithToken(
        second.gateway,
        token,
        done.json().images[0].download_path,
      );
      expect(download.rawPayload.equals(fake.produced[0] as Buffer)).toBe(true);
      expect(await jobCounts(second.gateway)).toEqual({ running: 1, succeeded: 1 });
      const entries = await second.gateway.store.ledger.listEntries(accountId, 10);
      expect(entries.filter((entry) => entry.kind === 'usage')).toHaveLength(1);
      expect((await second.gateway.store.ledger.getBalance(accountId)).balance).toBe(
        credits - bflPrice,
      );
      await second.close();
      await store.close();
    } finally {
      await fake.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('input images, and their protection while the job runs', () => {
  const bed = useTestBed(() => startImageBed());
  const png = encodePng(2, 2, pixelsFor(2, 2, 9));

  it('stores reference images, passes them to the provider and protects them while the job runs', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    bed.fake.holdJobs = true;
    const accepted = await createImage(bed.gateway, token, 'input-1', {
      model: 'picture-job',
      prompt: 'like this',
      source: 'credits',
      input_images: [{ name: 'ref.png', media_type: 'image/png', data: png.toString('base64') }],
    });
    expect(accepted.statusCode).toBe(202);
    const submit = bed.fake.requests.find((request) => request.body?.prompt === 'like this');
    expect(submit?.body?.input_image).toBe(png.toString('base64'));
    const listed = await getWithToken(bed.gateway, token, '/v1/storage/assets');
    const input = listed.json().data.find((file: { name: string }) => file.name === 'ref.png');
    expect(input).toMatchObject({ source: 'image_input', protected: true });
    const refused = await bed.gateway.app.inject({
      method: 'DELETE',
      url: `/v1/storage/assets/${input.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.statusCode).toBe(409);
    bed.fake.holdJobs = false;
    const done = await pollUntilFinished(bed.gateway, token, accepted.json().id);
    expect(done.json().status).toBe('succeeded');
    expect((await bed.gateway.storage.getAsset(accountId, input.id))?.protected).toBe(false);
  });

  it('refuses what the model or provider cannot do with 400 naming the field, before any call', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const before = bed.fake.requests.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'picture-sync', aspect_ratio: '16:9' }, 'aspect_ratio'],
      [{ model: 'picture-sync', resolution: '4K' }, 'resolution'],
      [{ model: 'picture-job', quality: 'high' }, 'quality'],
      [{ model: 'picture-job', n: 2 }, 'n'],
      [
        {
          model: 'picture-sync',
          input_images: [{ name: 'a', media_type: 'image/png', data: png.toString('base64') }],
        },
        'input_images',
      ],
      [
        {
          model: 'picture-job',
          input_images: [{ name: 'a', media_type: 'image/jpeg', data: png.toString('base64') }],
        },
        'input_images[0].data',
      ],
      [
        {
          model: 'picture-job',
          input_images: [{ name: 'a', media_type: 'image/png', data: 'not base64!' }],
        },
        'input_images[0].data',
      ],
      [{ model: 'picture-sync', source: 'subscription' }, 'source'],
    ];
    for (const [fields, param] of cases) {
      const response = await createImage(bed.gateway, token, `bad-${param}`, {
        prompt: 'x',
        source: 'credits',
        ...fields,
      });
      expect(response.statusCode, param).toBe(400);
      expect(response.json().error.message, param).toContain(param);
    }
    const unknown = await createImage(bed.gateway, token, 'bad-extra', {
      model: 'picture-sync',
      prompt: 'x',
      source: 'credits',
      style: 'vivid',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('style');
    const missingKey = await createImage(bed.gateway, token, undefined, {
      model: 'picture-sync',
      prompt: 'x',
      source: 'credits',
    });
    expect(missingKey.statusCode).toBe(400);
    expect(missingKey.json().error.message).toContain('Idempotency-Key');
    expect(bed.fake.requests.length).toBe(before);
  });

  it('lists sources and models for the token', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const { token: empty } = await bed.gateway.createToken({ permissions: ['image:create'] });
    const sources = await getWithToken(bed.gateway, token, '/v1/images/sources');
    expect(sources.json().data[0]).toEqual({ source: 'credits', available: true, reason: null });
    const none = await getWithToken(bed.gateway, empty, '/v1/images/sources');
    expect(none.json().data[0]).toMatchObject({ source: 'credits', available: false });
    const models = await getWithToken(bed.gateway, token, '/v1/images/models?source=credits');
    expect(models.statusCode).toBe(200);
    const job = models.json().data.find((model: { id: string }) => model.id === 'picture-job');
    expect(job).toMatchObject({ mode: 'job', max_input_images: 4 });
    expect(job.prices).toEqual([{ resolution: '1K', quality: null, per_image: bflPrice / 1e6 }]);
    const openapi = await bed.gateway.app.inject({ method: 'GET', url: '/openapi.json' });
    const operations = JSON.stringify(openapi.json().paths);
    for (const id of [
      'createImageGeneration',
      'getImageGeneration',
      'listImageSources',
      'listImageModels',
    ])
      expect(operations).toContain(id);
  });
});

describe('job bounds', () => {
  const bed = useTestBed(async () => {
    const fake = await startFakeImageUpstream();
    const bounded = await startImageBed({
      fake,
      images: {
        syncWaitMs: 50,
        jobTimeoutSeconds: 1,
        providers: [
          { id: 'openai-fake', kind: 'openai-images', baseUrl: fake.url },
          { id: 'bfl-fake', kind: 'bfl', baseUrl: fake.url, pollIntervalMs: 20, concurrency: 1 },
        ],
      },
    });
    return {
      ...bounded,
      async close() {
        await bounded.close();
        await fake.close();
      },
    };
  });

  it('runs at most the provider concurrency at once, and fails a job past its timeout, releasing its hold', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    bed.fake.holdJobs = true;
    const ids: string[] = [];
    for (const key of ['bound-1', 'bound-2']) {
      const accepted = await createImage(bed.gateway, token, key, {
        model: 'picture-job',
        prompt: key,
        source: 'credits',
      });
      expect(accepted.statusCode).toBe(202);
      ids.push(accepted.json().id as string);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One worker slot: the second job waits queued, unsubmitted.
    expect(bed.fake.submits('bfl')).toBe(1);
    const second = await getWithToken(bed.gateway, token, `/v1/images/generations/${ids[1]}`);
    expect(second.json().status).toBe('queued');
    // Both are held meanwhile; past the 1 s timeout both fail and both holds are released.
    expect((await bed.gateway.store.ledger.getBalance(accountId)).held).toBe(2 * bflPrice);
    for (const id of ids) {
      const finished = await pollUntilFinished(bed.gateway, token, id);
      expect(finished.json()).toMatchObject({
        status: 'failed',
        error: { code: 'upstream_error' },
      });
    }
    bed.fake.holdJobs = false;
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });
});
