import { describe, expect, it } from 'vitest';

import type {
  IdempotencyScope,
  IdempotencyStore,
  StoredAnswer,
} from '../../src/idempotency/idempotency-store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';
import type { Store } from '../../src/store/store.ts';

const now = 1_800_000_000_000;
const minute = 60_000;

const answer: StoredAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json', 'x-feature': 'kept' },
  // A replay must be byte-identical: member order, escapes and non-ASCII text included.
  body: '{"z":1,"a":"ü\\u2028 \\"quoted\\"","n":[1.50,2]}',
};

/** The IdempotencyStore contract (src/idempotency/idempotency-store.ts) against one adapter. */
export function describeIdempotencyStoreContract(
  name: string,
  openStore: () => Promise<Store>,
): void {
  describe(`IdempotencyStore contract (${name})`, () => {
    const store = useContractStore(openStore);
    const idempotency = (): IdempotencyStore => store().idempotency;

    async function newScope(overrides: Partial<IdempotencyScope> = {}): Promise<IdempotencyScope> {
      const account = await createTestAccount(store());
      return { accountId: account.id, operation: 'evaluation', key: uniqueId('key'), ...overrides };
    }

    const claimAt = (at: number, fingerprint = 'fp-1', claimId = uniqueId('claim')) => ({
      fingerprint,
      claimId,
      now: at,
      claimExpiresAt: at + 10 * minute,
    });

    it('lets the first request claim a key and reports the holder to the next', async () => {
      const scope = await newScope();
      expect(await idempotency().claim(scope, claimAt(now))).toEqual({ kind: 'claimed' });
      expect(await idempotency().claim(scope, claimAt(now + 1, 'fp-2'))).toEqual({
        kind: 'in_progress',
        fingerprint: 'fp-1',
        claimExpiresAt: now + 10 * minute,
      });
    });

    it('replays a completed answer byte for byte inside its window', async () => {
      const scope = await newScope();
      const claim = claimAt(now);
      await idempotency().claim(scope, claim);
      expect(await idempotency().complete(scope, claim.claimId, answer, now + 15 * minute)).toBe(
        true,
      );
      const outcome = await idempotency().claim(scope, claimAt(now + 15 * minute - 1, 'fp-2'));
      expect(outcome).toEqual({ kind: 'completed', fingerprint: 'fp-1', answer });
      if (outcome.kind === 'completed') expect(outcome.answer.body).toBe(answer.body);
    });

    it('keeps accounts, operations and keys apart', async () => {
      const scope = await newScope();
      await idempotency().claim(scope, claimAt(now));
      const other = await createTestAccount(store());
      for (const variant of [
        { ...scope, accountId: other.id },
        { ...scope, operation: 'image_generation' },
        { ...scope, key: `${scope.key}x` },
      ]) {
        expect(await idempotency().claim(variant, claimAt(now))).toEqual({ kind: 'claimed' });
      }
    });

    it('gives a key to exactly one of many concurrent claims', async () => {
      const scope = await newScope();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => idempotency().claim(scope, claimAt(now))),
      );
      expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'in_progress')).toHaveLength(19);
    });

    it('gives a released key to the next request, and only its holder can release it', async () => {
      const scope = await newScope();
      const claim = claimAt(now);
      await idempotency().claim(scope, claim);
      await idempotency().release(scope, 'someone-else');
      expect((await idempotency().claim(scope, claimAt(now))).kind).toBe('in_progress');
      await idempotency().release(scope, claim.claimId);
      expect(await idempotency().claim(scope, claimAt(now, 'fp-2'))).toEqual({ kind: 'claimed' });
    });

    it('never releases a completed answer', async () => {
      const scope = await newScope();
      const claim = claimAt(now);
      await idempotency().claim(scope, claim);
      await idempotency().complete(scope, claim.claimId, answer, now + minute);
      await idempotency().release(scope, claim.claimId);
      expect((await idempotency().claim(scope, claimAt(now))).kind).toBe('completed');
    });

    it('runs again once the window ended, and takes over an abandoned claim', async () => {
      const scope = await newScope();
      const first = claimAt(now);
      await idempotency().claim(scope, first);
      await idempotency().complete(scope, first.claimId, answer, now + 15 * minute);
      expect(await idempotency().claim(scope, claimAt(now + 15 * minute, 'fp-2'))).toEqual({
        kind: 'claimed',
      });

      const abandoned = await newScope();
      const crashed = claimAt(now);
      await idempotency().claim(abandoned, crashed);
      const later = claimAt(crashed.claimExpiresAt);
      expect(await idempotency().claim(abandoned, later)).toEqual({ kind: 'claimed' });
      // The crashed holder cannot overwrite the new claim's entry.
      expect(await idempotency().complete(abandoned, crashed.claimId, answer, now + minute)).toBe(
        false,
      );
      expect(await idempotency().complete(abandoned, later.claimId, answer, now + minute)).toBe(
        true,
      );
    });

    it('renews a live claim held by its claim id, and never revives a lapsed one', async () => {
      const scope = await newScope();
      const claim = claimAt(now);
      await idempotency().claim(scope, claim);
      await idempotency().renew([{ scope, claimId: 'someone-else' }], now + 1, now + 20 * minute);
      await idempotency().renew([{ scope, claimId: claim.claimId }], now + 1, now + 30 * minute);
      expect(await idempotency().claim(scope, claimAt(now + 20 * minute))).toEqual({
        kind: 'in_progress',
        fingerprint: 'fp-1',
        claimExpiresAt: now + 30 * minute,
      });

      const lapsed = await newScope();
      const gone = claimAt(now);
      await idempotency().claim(lapsed, gone);
      await idempotency().renew(
        [{ scope: lapsed, claimId: gone.claimId }],
        gone.claimExpiresAt,
        gone.claimExpiresAt + minute,
      );
      expect((await idempotency().claim(lapsed, claimAt(gone.claimExpiresAt))).kind).toBe(
        'claimed',
      );
    });

    it('completes only the claim that holds the key, once', async () => {
      const scope = await newScope();
      const claim = claimAt(now);
      await idempotency().claim(scope, claim);
      expect(await idempotency().complete(scope, 'someone-else', answer, now + minute)).toBe(false);
      expect(await idempotency().complete(scope, claim.claimId, answer, now + minute)).toBe(true);
      const changed = { ...answer, body: '{}' };
      expect(await idempotency().complete(scope, claim.claimId, changed, now + minute)).toBe(false);
      const outcome = await idempotency().claim(scope, claimAt(now));
      expect(outcome.kind === 'completed' && outcome.answer.body).toBe(answer.body);
    });
  });

  describe(`IdempotencyStore sweep (${name})`, () => {
    // A store of its own, so the counts are this test's entries alone.
    const store = useContractStore(openStore);

    it('deletes expired entries in bounded batches and keeps live ones', async () => {
      const idempotency = store().idempotency;
      const account = await createTestAccount(store());
      const scope = (key: string) => ({ accountId: account.id, operation: 'evaluation', key });
      const claim = (claimExpiresAt: number) => ({
        fingerprint: 'fp',
        claimId: uniqueId('claim'),
        now,
        claimExpiresAt,
      });
      for (let index = 0; index < 5; index += 1) {
        await idempotency.claim(scope(`expired-${index}`), claim(now + index));
      }
      await idempotency.claim(scope('live'), claim(now + 2 * minute));

      const sweptAt = now + minute;
      expect(await idempotency.deleteExpired(sweptAt, 3)).toBe(3);
      expect(await idempotency.deleteExpired(sweptAt, 3)).toBe(2);
      expect(await idempotency.deleteExpired(sweptAt, 3)).toBe(0);
      expect((await idempotency.claim(scope('live'), claim(sweptAt + minute))).kind).toBe(
        'in_progress',
      );
    });
  });
}
