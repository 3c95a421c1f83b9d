import { describe, expect, it } from 'vitest';

import type { IdempotencyStore } from './idempotency-store.ts';
import { sweepExpiredIdempotencyEntries } from './sweep-expired-idempotency-entries.ts';

function storeWith(expired: number): { store: IdempotencyStore; calls: Array<[number, number]> } {
  let left = expired;
  const calls: Array<[number, number]> = [];
  const refuse = async (): Promise<never> => {
    throw new Error('not used by the sweep');
  };
  return {
    calls,
    store: {
      claim: refuse,
      complete: refuse,
      release: refuse,
      renew: refuse,
      async deleteExpired(now, limit) {
        calls.push([now, limit]);
        const deleted = Math.min(left, limit);
        left -= deleted;
        return deleted;
      },
    },
  };
}

describe('sweepExpiredIdempotencyEntries', () => {
  it('deletes in batches at one clock value until a batch comes back short', async () => {
    const { store, calls } = storeWith(25);
    expect(await sweepExpiredIdempotencyEntries(store, 42, { batchSize: 10, maxBatches: 5 })).toBe(
      25,
    );
    expect(calls).toEqual([
      [42, 10],
      [42, 10],
      [42, 10],
    ]);
  });

  it('stops after its batch bound and leaves the rest for the next sweep', async () => {
    const { store, calls } = storeWith(1_000);
    expect(await sweepExpiredIdempotencyEntries(store, 7, { batchSize: 10, maxBatches: 3 })).toBe(
      30,
    );
    expect(calls).toHaveLength(3);
  });
});
