import { describe, it } from 'vitest';

import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
  probePostgres,
} from '../support/isolated-test-stores.ts';
import { describeImageJobStoreContract } from './image-job-store.contract.ts';

describeImageJobStoreContract('SQLite', () => openTemporarySqliteStore());

const unreachableReason = await probePostgres();
const ciRequiresPostgres = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';

if (unreachableReason === undefined) {
  describeImageJobStoreContract('PostgreSQL', openIsolatedPostgresStore);
} else if (ciRequiresPostgres) {
  describe('ImageJobStore contract (PostgreSQL)', () => {
    it('reaches PostgreSQL, which CI requires', () => {
      throw new Error(`PostgreSQL did not answer (${unreachableReason}).`);
    });
  });
} else {
  console.warn(
    `\n*** ImageJobStore PostgreSQL contract SKIPPED: PostgreSQL did not answer ` +
      `(${unreachableReason}). ***\n`,
  );
}
