import { describe, it } from 'vitest';

import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
  probePostgres,
} from '../support/isolated-test-stores.ts';
import { describeIdempotencyStoreContract } from './idempotency-store.contract.ts';

describeIdempotencyStoreContract('SQLite', () => openTemporarySqliteStore());
describeIdempotencyStoreContract('SQLite, owned by the gateway process', () =>
  openTemporarySqliteStore(true),
);

const unreachableReason = await probePostgres();
const ciRequiresPostgres = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';

if (unreachableReason === undefined) {
  describeIdempotencyStoreContract('PostgreSQL', openIsolatedPostgresStore);
} else if (ciRequiresPostgres) {
  describe('IdempotencyStore contract (PostgreSQL)', () => {
    it('reaches PostgreSQL, which CI requires', () => {
      throw new Error(`PostgreSQL did not answer (${unreachableReason}).`);
    });
  });
} else {
  console.warn(
    `\n*** IdempotencyStore PostgreSQL contract SKIPPED: PostgreSQL did not answer ` +
      `(${unreachableReason}). ***\n`,
  );
}
