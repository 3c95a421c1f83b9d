import { describe, expect, it } from 'vitest';

import type { ApiError } from '../canonical/generation-error.ts';
import { TokenBudgets } from './token-budgets.ts';

/** Charges recorded per token, as the usage store sums them. */
function ledgerOfCharges() {
  const charges: Array<{ apiKeyId: string; cost: number; at: number }> = [];
  let reads = 0;
  return {
    charges,
    reads: () => reads,
    async spentByToken(apiKeyId: string, since: number, until = Number.POSITIVE_INFINITY) {
      reads += 1;
      return charges
        .filter((charge) => charge.apiKeyId === apiKeyId && charge.at >= since && charge.at < until)
        .reduce((sum, charge) => sum + charge.cost, 0);
    },
  };
}

const day = 86_400_000;
const start = Date.UTC(2026, 2, 16, 9);

describe('TokenBudgets', () => {
  const apiKey = { id: 'key_a', budget: { amount: 1_000, period: 'daily' as const } };

  it('counts every charge of the period as the clock moves, however its sum is cached', async () => {
    const charges = ledgerOfCharges();
    let now = start;
    const budgets = new TokenBudgets({ spentByToken: charges.spentByToken, now: () => now });
    // Yesterday's charge is outside the daily period; another token's is someone else's.
    charges.charges.push({ apiKeyId: 'key_a', cost: 999, at: start - day });
    charges.charges.push({ apiKeyId: 'key_b', cost: 999, at: start });
    for (let minute = 0; minute < 30; minute += 1) {
      charges.charges.push({ apiKeyId: 'key_a', cost: 10, at: now - 1 });
      now += 60_000;
      expect((await budgets.standing(apiKey))?.spent).toBe(10 * (minute + 1));
    }
    // At midnight the budget is whole again.
    now = Date.UTC(2026, 2, 17, 0, 0, 1);
    expect(await budgets.standing(apiKey)).toMatchObject({ spent: 0, remaining: 1_000 });
  });

  it('reserves what is chosen, refuses when nothing fits, and frees a reservation once', async () => {
    const charges = ledgerOfCharges();
    const budgets = new TokenBudgets({ spentByToken: charges.spentByToken, now: () => start });
    const first = await budgets.reserve(apiKey, (remaining) => Math.min(remaining, 600), 100);
    expect(first?.amount).toBe(600);
    const second = await budgets.reserve(apiKey, (remaining) => remaining, 100);
    expect(second?.amount).toBe(400);
    const refused = await budgets
      .reserve(apiKey, () => undefined, 100)
      .catch((error: unknown) => error as ApiError);
    expect(refused).toMatchObject({
      code: 'budget_exceeded',
      status: 402,
      details: { reserved_micro: 1_000, required_micro: 100, budget_period: 'daily' },
    });
    await first?.release();
    await first?.release();
    expect((await budgets.standing(apiKey))?.remaining).toBe(600);
    expect(await budgets.reserve({ id: 'key_free', budget: null }, () => 5, 5)).toBeUndefined();
  });

  it('serializes reads and reservations of one token so concurrent calls share what is left', async () => {
    const charges = ledgerOfCharges();
    const budgets = new TokenBudgets({ spentByToken: charges.spentByToken, now: () => start });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        budgets.reserve(apiKey, (remaining) => (remaining >= 300 ? 300 : undefined), 300),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
  });
});
