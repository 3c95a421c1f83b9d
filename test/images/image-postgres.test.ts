import { describe, expect, it } from 'vitest';

import type { Store } from '../../src/store/store.ts';
import { openIsolatedPostgresStore, probePostgres } from '../support/isolated-test-stores.ts';
import { startFakeImageUpstream } from './fake-image-upstream.ts';
import {
  bflPrice,
  createImage,
  getWithToken,
  pollUntilFinished,
  startImageBed,
} from './image-test-bed.ts';

const credits = 10_000_000;
const unreachableReason = await probePostgres();

/**
 * Scale-out (docs/decisions/0070): two gateways on one PostgreSQL store share the job table; a
 * job created on one and abandoned by its stop is finished by the other, charged once.
 */
describe.skipIf(unreachableReason !== undefined)('image jobs on PostgreSQL', () => {
  it('hands a job over between two gateways and charges it once', async () => {
    const store: Store = await openIsolatedPostgresStore();
    const fake = await startFakeImageUpstream();
    try {
      fake.holdJobs = true;
      const first = await startImageBed({ store, fake, images: { syncWaitMs: 50 } });
      const second = await startImageBed({ store, fake, images: { syncWaitMs: 50 } });
      const { token, accountId } = await first.gateway.createToken({
        credits,
        permissions: ['image:create'],
      });
      const accepted = await createImage(first.gateway, token, 'pg-1', {
        model: 'picture-job',
        prompt: 'shared queue',
        source: 'credits',
      });
      expect(accepted.statusCode).toBe(202);
      const jobId = accepted.json().id as string;
      // The same key on the other gateway is the same job.
      const replay = await createImage(second.gateway, token, 'pg-1', {
        model: 'picture-job',
        prompt: 'shared queue',
        source: 'credits',
      });
      expect(replay.json().id).toBe(jobId);
      expect((await store.ledger.getBalance(accountId)).held).toBe(bflPrice);
      await first.close();
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
      expect(await store.ledger.getBalance(accountId)).toMatchObject({
        balance: credits - bflPrice,
        held: 0,
      });
      await second.close();
    } finally {
      await fake.close();
      await store.close();
    }
  });
});
