import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { request } from 'undici';
import { expect, it } from 'vitest';

import { OperatorService } from '../../src/operator/operator-service.ts';
import { grantFundedToken } from '../support/grant-funded-token.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import { spawnGatewayChild } from '../support/spawn-gateway-child.ts';
import { startFakeImageUpstream } from './fake-image-upstream.ts';
import {
  bflPrice,
  createImage,
  imagesConfig,
  openaiPrice,
  startImageBed,
} from './image-test-bed.ts';

const credits = 10_000_000;

/**
 * SIGTERM while a synchronous generation and a job-style submit are in flight upstream: both
 * calls finish inside `server.shutdownGraceMs`, answer their images and are charged once
 * (docs/decisions/0108), instead of being cut and failed uncharged while the upstream bills.
 */
it('a stop lets image calls in flight finish within the grace, each charged once', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-image-stop-'));
  const fake = await startFakeImageUpstream();
  const store = await openSqliteStore({
    path: path.join(folder, 'switchyard.sqlite'),
    owner: false,
  });
  try {
    const operator = new OperatorService(store);
    const { accountId, token } = await grantFundedToken(operator, {
      name: 'stop',
      credits,
      permissions: ['image:create'],
    });
    const gateway = await spawnGatewayChild(
      {
        dataDir: folder,
        server: { shutdownGraceMs: 15_000 },
        images: imagesConfig(fake.url, { syncWaitMs: 20_000 }),
      },
      { IMAGE_KEY: 'image-upstream-key' },
    );
    let stalls = 0;
    const bothInFlight = new Promise<void>((resolve) => {
      fake.onStall = () => {
        stalls += 1;
        if (stalls === 2) resolve();
      };
    });
    fake.stall = (method) => method === 'POST';
    const create = (model: string, key: string) =>
      request(`${gateway.url}/v1/images/generations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ model, prompt: 'finish me', source: 'credits' }),
      }).then(async (response) => ({
        status: response.statusCode,
        body: (await response.body.json()) as Record<string, unknown>,
      }));
    const sync = create('picture-sync', 'stop-sync');
    const job = create('picture-job', 'stop-job');
    await bothInFlight;

    const stoppedAt = Date.now();
    const exited = gateway.terminate();
    // The stop has begun while both upstream calls are still open; then the upstream answers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    fake.stall = undefined;
    fake.resumeStalled();

    const [syncAnswer, jobAnswer] = await Promise.all([sync, job]);
    expect(syncAnswer).toMatchObject({ status: 200, body: { status: 'succeeded' } });
    expect(jobAnswer).toMatchObject({ status: 200, body: { status: 'succeeded' } });
    // Everything finished within the grace: nothing had to be cut.
    expect(await exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(fake.submits('openai')).toBe(1);
    expect(fake.submits('bfl')).toBe(1);
    expect(await store.ledger.getBalance(accountId)).toEqual({
      balance: credits - openaiPrice - bflPrice,
      held: 0,
      available: credits - openaiPrice - bflPrice,
    });
  } finally {
    await store.close();
    await fake.close();
    await rm(folder, { recursive: true, force: true });
  }
}, 60_000);

/**
 * A job-style job nobody in this process waits for any more hands over at its next poll instead
 * of holding the stop for the whole grace: its upstream id is stored, the next process polls on.
 */
it('a stop hands over a polled job nobody waits for at once, without a second submit', async () => {
  const fake = await startFakeImageUpstream();
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-image-handover-'));
  const file = path.join(folder, 'switchyard.sqlite');
  try {
    fake.holdJobs = true;
    const store = await openSqliteStore({ path: file, owner: true });
    const bed = await startImageBed({ store, fake, images: { syncWaitMs: 50 } });
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const accepted = await createImage(bed.gateway, token, 'handover-1', {
      model: 'picture-job',
      prompt: 'hand me over',
      source: 'credits',
    });
    expect(accepted.statusCode).toBe(202);
    while (!fake.requests.some((request) => request.path === '/v1/get_result')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const stoppedAt = Date.now();
    await bed.close();
    await store.close();
    // Far within the 15 s default grace: it did not wait for the job to finish.
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);

    const next = await openSqliteStore({ path: file, owner: true });
    const job = await next.imageJobs.getJob(accountId, accepted.json().id as string);
    await next.close();
    expect(job).toMatchObject({ state: 'running', upstreamJobId: expect.any(String) });
    expect(fake.submits('bfl')).toBe(1);
  } finally {
    await fake.close();
    await rm(folder, { recursive: true, force: true });
  }
}, 30_000);
