import { describe, expect, it } from 'vitest';

import type { LedgerEntry, Settlement } from '../../src/billing/credit-ledger.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

/** Far enough ahead that no test's expiry sweep (which uses small clock values) touches it. */
const openUntil = () => Date.now() + 3_600_000;

export function describeCreditLedgerContract(name: string, openStore: () => Promise<Store>): void {
  describe(`CreditLedger contract (${name})`, () => {
    const store = useContractStore(openStore);

    function entry(accountId: string, amount: number, overrides: Partial<LedgerEntry> = {}) {
      return {
        id: uniqueId('entry'),
        accountId,
        amount,
        kind: 'grant',
        reason: 'contract test',
        requestId: null,
        createdAt: Date.now(),
        ...overrides,
      } satisfies LedgerEntry;
    }

    async function fundedAccount(amount: number): Promise<string> {
      const account = await createTestAccount(store());
      await store().ledger.appendEntry(entry(account.id, amount));
      return account.id;
    }

    function hold(accountId: string, amount: number, expiresAt = openUntil()) {
      return { id: uniqueId('hold'), accountId, amount, expiresAt };
    }

    function settlement(placed: { id: string; accountId: string }, cost: number): Settlement {
      const requestId = uniqueId('request');
      const createdAt = Date.now();
      return {
        id: uniqueId('entry'),
        holdId: placed.id,
        accountId: placed.accountId,
        cost,
        reason: 'generation',
        requestId,
        createdAt,
        record: {
          requestId,
          accountId: placed.accountId,
          apiKeyId: 'key_contract',
          surface: 'messages',
          model: 'contract-model',
          deployment: 'contract-provider/upstream-model',
          inputTokens: 10,
          inputCacheReadTokens: 0,
          inputCacheWrite5mTokens: 0,
          inputCacheWrite1hTokens: 0,
          outputTokens: 5,
          reasoningTokens: 0,
          latencyMs: 12,
          firstTokenMs: null,
          outcome: 'ok',
          status: 200,
          createdAt,
        },
      };
    }

    const settle = (placed: { id: string; accountId: string }, cost: number) =>
      store().ledger.settle(settlement(placed, cost));

    it('adds grants to the balance', async () => {
      const accountId = await fundedAccount(1_500_000);
      await store().ledger.appendEntry(entry(accountId, 250_000));
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_750_000,
        held: 0,
        available: 1_750_000,
      });
    });

    it('reports a zero balance for an account without entries', async () => {
      const account = await createTestAccount(store());
      expect(await store().ledger.getBalance(account.id)).toEqual({
        balance: 0,
        held: 0,
        available: 0,
      });
    });

    it('refuses entries and holds for an account that does not exist', async () => {
      const missingAccountId = uniqueId('account');
      await expect(store().ledger.appendEntry(entry(missingAccountId, 100))).rejects.toThrow();
      expect(await store().ledger.placeHold(hold(missingAccountId, 1))).toBe(false);
      expect(await store().ledger.listEntries(missingAccountId, 10)).toEqual([]);
    });

    it('subtracts a negative adjustment', async () => {
      const accountId = await fundedAccount(500);
      await store().ledger.appendEntry(entry(accountId, -200, { kind: 'adjustment' }));
      expect(await store().ledger.getBalance(accountId)).toMatchObject({
        balance: 300,
        available: 300,
      });
    });

    it('refuses amounts that are not whole micro-credits', async () => {
      const accountId = await fundedAccount(1_000);
      await expect(store().ledger.appendEntry(entry(accountId, 0.5))).rejects.toThrow(RangeError);
      await expect(store().ledger.placeHold(hold(accountId, 1.5))).rejects.toThrow(RangeError);
      await expect(store().ledger.placeHold(hold(accountId, -10))).rejects.toThrow(RangeError);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_000,
        held: 0,
        available: 1_000,
      });
    });

    it('refuses, writing nothing, an entry that would take a balance past exact numbers', async () => {
      const accountId = await fundedAccount(Number.MAX_SAFE_INTEGER);
      expect((await store().ledger.getBalance(accountId)).balance).toBe(Number.MAX_SAFE_INTEGER);
      expect(await store().ledger.appendEntry(entry(accountId, 1))).toBe('beyond_exact_range');
      expect((await store().ledger.getBalance(accountId)).balance).toBe(Number.MAX_SAFE_INTEGER);
      expect(await store().ledger.listEntries(accountId, 10)).toHaveLength(1);
    });

    it('refuses an entry that would go below zero unless it is allowed to', async () => {
      const accountId = await fundedAccount(500);
      const refused = entry(accountId, -501, { kind: 'adjustment' });
      expect(await store().ledger.appendEntry(refused)).toBe('below_zero');
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 500,
        held: 0,
        available: 500,
      });
      expect(await store().ledger.listEntries(accountId, 10)).toHaveLength(1);
      expect(await store().ledger.appendEntry(entry(accountId, -500, { kind: 'adjustment' }))).toBe(
        undefined,
      );
      expect(
        await store().ledger.appendEntry(entry(accountId, -1, { kind: 'adjustment' }), {
          allowNegative: true,
        }),
      ).toBe(undefined);
      expect((await store().ledger.getBalance(accountId)).balance).toBe(-1);
    });

    it('refuses a first entry below zero at an account without a balance', async () => {
      const account = await createTestAccount(store());
      expect(await store().ledger.appendEntry(entry(account.id, -5, { kind: 'adjustment' }))).toBe(
        'below_zero',
      );
      expect(await store().ledger.listEntries(account.id, 10)).toEqual([]);
    });

    it('lists entries newest first, within the limit, with every field', async () => {
      const account = await createTestAccount(store());
      const oldest = entry(account.id, 100, { createdAt: 1_000 });
      const middle = entry(account.id, -40, {
        kind: 'adjustment',
        reason: 'refund reversal',
        createdAt: 2_000,
      });
      const newest = entry(account.id, 7, { requestId: 'request-7', createdAt: 3_000 });
      // Written out of time order: the listing follows createdAt, not insertion.
      for (const item of [middle, newest, oldest]) {
        await store().ledger.appendEntry(item, { allowNegative: true });
      }

      expect(await store().ledger.listEntries(account.id, 10)).toEqual([newest, middle, oldest]);
      expect(await store().ledger.listEntries(account.id, 2)).toEqual([newest, middle]);
    });

    it('lists entries of the same millisecond in the order they were written, newest first', async () => {
      const account = await createTestAccount(store());
      const first = entry(account.id, 1, { createdAt: 5_000 });
      const second = entry(account.id, 2, { createdAt: 5_000 });
      await store().ledger.appendEntry(first);
      await store().ledger.appendEntry(second);
      expect((await store().ledger.listEntries(account.id, 10)).map((item) => item.id)).toEqual([
        second.id,
        first.id,
      ]);
    });

    it('keeps a hold out of the available balance', async () => {
      const accountId = await fundedAccount(1_000);
      expect(await store().ledger.placeHold(hold(accountId, 300))).toBe(true);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_000,
        held: 300,
        available: 700,
      });
    });

    it('refuses a hold the available balance cannot cover and reserves nothing', async () => {
      const accountId = await fundedAccount(1_000);
      expect(await store().ledger.placeHold(hold(accountId, 600))).toBe(true);
      const refused = hold(accountId, 401);
      expect(await store().ledger.placeHold(refused)).toBe(false);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_000,
        held: 600,
        available: 400,
      });
      expect(await store().ledger.placeHold(hold(accountId, 400))).toBe(true);
    });

    it('refuses a hold at an account that was never funded', async () => {
      const account = await createTestAccount(store());
      expect(await store().ledger.placeHold(hold(account.id, 1))).toBe(false);
      expect((await store().ledger.getBalance(account.id)).held).toBe(0);
    });

    it('settles by charging the cost, freeing the rest of the hold and recording the usage', async () => {
      const accountId = await fundedAccount(1_000);
      const placed = hold(accountId, 400);
      await store().ledger.placeHold(placed);
      const charge = settlement(placed, 150);

      expect(await store().ledger.settle(charge)).toEqual({ charged: 150, shortfall: 0 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 850,
        held: 0,
        available: 850,
      });
      const [latest] = await store().ledger.listEntries(accountId, 1);
      expect(latest).toEqual({
        id: charge.id,
        accountId,
        amount: -150,
        kind: 'usage',
        reason: charge.reason,
        requestId: charge.requestId,
        createdAt: charge.createdAt,
      });
      expect(await store().usage.listUsage(accountId, 10)).toEqual([
        { ...charge.record, cost: 150, shortfall: 0 },
      ]);
    });

    it('records a settlement of nothing without a ledger entry', async () => {
      const accountId = await fundedAccount(1_000);
      const placed = hold(accountId, 400);
      await store().ledger.placeHold(placed);
      expect(await settle(placed, 0)).toEqual({ charged: 0, shortfall: 0 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_000,
        held: 0,
        available: 1_000,
      });
      expect(await store().ledger.listEntries(accountId, 10)).toHaveLength(1);
      expect(await store().usage.listUsage(accountId, 10)).toHaveLength(1);
    });

    it('never charges past the hold and the balance: the rest is a recorded shortfall', async () => {
      const accountId = await fundedAccount(100);
      const placed = hold(accountId, 80);
      await store().ledger.placeHold(placed);
      expect(await settle(placed, 130)).toEqual({ charged: 100, shortfall: 30 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 0,
        held: 0,
        available: 0,
      });
      const [record] = await store().usage.listUsage(accountId, 1);
      expect(record).toMatchObject({ cost: 100, shortfall: 30 });
      expect(await store().ledger.placeHold(hold(accountId, 1))).toBe(false);
    });

    it('leaves the credits other open holds reserved out of an overrun', async () => {
      const accountId = await fundedAccount(100);
      const first = hold(accountId, 60);
      const second = hold(accountId, 40);
      await store().ledger.placeHold(first);
      await store().ledger.placeHold(second);
      expect(await settle(first, 500)).toEqual({ charged: 60, shortfall: 440 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 40,
        held: 40,
        available: 0,
      });
      expect(await settle(second, 40)).toEqual({ charged: 40, shortfall: 0 });
      expect((await store().ledger.getBalance(accountId)).balance).toBe(0);
    });

    it('settles each settlement once, answering a repeat with what it charged', async () => {
      const accountId = await fundedAccount(1_000);
      const placed = hold(accountId, 400);
      await store().ledger.placeHold(placed);
      const charge = settlement(placed, 150);
      expect(await store().ledger.settle(charge)).toEqual({ charged: 150, shortfall: 0 });
      expect(await store().ledger.settle(charge)).toEqual({ charged: 150, shortfall: 0 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 850,
        held: 0,
        available: 850,
      });
      const usageEntries = (await store().ledger.listEntries(accountId, 10)).filter(
        (item) => item.kind === 'usage',
      );
      expect(usageEntries).toHaveLength(1);
      expect(await store().usage.listUsage(accountId, 10)).toHaveLength(1);
    });

    it('settles once when the same settlement races itself', async () => {
      const accountId = await fundedAccount(1_000);
      const placed = hold(accountId, 400);
      await store().ledger.placeHold(placed);
      const charge = settlement(placed, 100);
      const outcomes = await Promise.all([
        store().ledger.settle(charge),
        store().ledger.settle(charge),
      ]);
      expect(outcomes).toEqual([
        { charged: 100, shortfall: 0 },
        { charged: 100, shortfall: 0 },
      ]);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 900,
        held: 0,
        available: 900,
      });
      expect(await store().usage.listUsage(accountId, 10)).toHaveLength(1);
    });

    it('releases a hold without charging', async () => {
      const accountId = await fundedAccount(1_000);
      const placed = hold(accountId, 400);
      await store().ledger.placeHold(placed);
      const entriesBefore = await store().ledger.listEntries(accountId, 10);

      expect(await store().ledger.releaseHold(placed.id)).toBe(true);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 1_000,
        held: 0,
        available: 1_000,
      });
      expect(await store().ledger.listEntries(accountId, 10)).toEqual(entriesBefore);
      expect(await store().ledger.releaseHold(placed.id)).toBe(false);
    });

    it('refuses to release a settled hold, and charges a released one within the balance', async () => {
      const accountId = await fundedAccount(1_000);
      const settled = hold(accountId, 300);
      const released = hold(accountId, 200);
      await store().ledger.placeHold(settled);
      await store().ledger.placeHold(released);
      await settle(settled, 100);
      await store().ledger.releaseHold(released.id);

      expect(await store().ledger.releaseHold(settled.id)).toBe(false);
      // A call that outlived its hold still pays, but never past the balance.
      expect(await settle(released, 5_000)).toEqual({ charged: 900, shortfall: 4_100 });
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: 0,
        held: 0,
        available: 0,
      });
    });

    it('returns false when releasing holds that never existed', async () => {
      expect(await store().ledger.releaseHold(uniqueId('hold'))).toBe(false);
    });

    it('releases only the open holds that expired before now', async () => {
      const firstAccountId = await fundedAccount(1_000);
      const secondAccountId = await fundedAccount(1_000);
      const expired = hold(firstAccountId, 100, 10_000);
      const alsoExpired = hold(secondAccountId, 200, 10_500);
      const expiresExactlyNow = hold(firstAccountId, 300, 11_000);
      const settledBeforeExpiry = hold(secondAccountId, 50, 10_000);
      const live = hold(firstAccountId, 400);
      for (const item of [expired, alsoExpired, expiresExactlyNow, settledBeforeExpiry, live]) {
        expect(await store().ledger.placeHold(item)).toBe(true);
      }
      await settle(settledBeforeExpiry, 50);

      expect(await store().ledger.releaseExpiredHolds(11_000)).toBe(2);
      expect(await store().ledger.getBalance(firstAccountId)).toEqual({
        balance: 1_000,
        held: 700,
        available: 300,
      });
      expect(await store().ledger.getBalance(secondAccountId)).toEqual({
        balance: 950,
        held: 0,
        available: 950,
      });
      expect(await store().ledger.releaseExpiredHolds(11_000)).toBe(0);
      expect(await settle(expiresExactlyNow, 10)).toEqual({ charged: 10, shortfall: 0 });
      expect(await store().ledger.getBalance(firstAccountId)).toEqual({
        balance: 990,
        held: 400,
        available: 590,
      });
    });

    it('grants exactly the holds the balance covers when 50 arrive at once', async () => {
      const amount = 1_234;
      const accountId = await fundedAccount(amount * 10);
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => store().ledger.placeHold(hold(accountId, amount))),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(10);
      expect(await store().ledger.getBalance(accountId)).toEqual({
        balance: amount * 10,
        held: amount * 10,
        available: 0,
      });
    });
  });
}
