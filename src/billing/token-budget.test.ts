import { describe, expect, it } from 'vitest';

import { budgetPeriodEnd, budgetPeriodStart } from './token-budget.ts';

describe('budgetPeriodStart', () => {
  // Wednesday 2026-03-18 15:30 UTC.
  const now = Date.UTC(2026, 2, 18, 15, 30);

  it('starts a day at UTC midnight, a week on Monday and a month on the first', () => {
    expect(budgetPeriodStart('daily', now)).toBe(Date.UTC(2026, 2, 18));
    expect(budgetPeriodStart('weekly', now)).toBe(Date.UTC(2026, 2, 16));
    expect(budgetPeriodStart('monthly', now)).toBe(Date.UTC(2026, 2, 1));
  });

  it('keeps a Sunday in the week that began on the Monday before', () => {
    expect(budgetPeriodStart('weekly', Date.UTC(2026, 2, 22, 23, 59))).toBe(Date.UTC(2026, 2, 16));
    expect(budgetPeriodStart('weekly', Date.UTC(2026, 2, 23))).toBe(Date.UTC(2026, 2, 23));
  });

  it('ends each period where the next begins, across a year end', () => {
    expect(budgetPeriodEnd('daily', now)).toBe(Date.UTC(2026, 2, 19));
    expect(budgetPeriodEnd('weekly', now)).toBe(Date.UTC(2026, 2, 23));
    expect(budgetPeriodEnd('monthly', Date.UTC(2026, 11, 31, 12))).toBe(Date.UTC(2027, 0, 1));
  });
});
