/** How often a token's spend budget starts again (docs/decisions/0166). */
export const budgetPeriods = ['daily', 'weekly', 'monthly'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

/** A token's spend budget: at most `amount` micro-credits charged per period. */
export interface TokenBudget {
  amount: number;
  period: BudgetPeriod;
}

export function isBudgetPeriod(value: string): value is BudgetPeriod {
  return (budgetPeriods as readonly string[]).includes(value);
}

/**
 * Where the period containing `now` began, in epoch milliseconds: UTC midnight, the Monday of
 * an ISO week (ISO 8601), or the first of the month, so every gateway and the reports agree.
 */
export function budgetPeriodStart(period: BudgetPeriod, now: number): number {
  const date = new Date(now);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  switch (period) {
    case 'daily':
      return midnight;
    case 'weekly':
      // getUTCDay: Sunday is 0; the ISO week starts on Monday.
      return midnight - ((date.getUTCDay() + 6) % 7) * 86_400_000;
    case 'monthly':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    default: {
      const unhandled: never = period;
      throw new Error(`Unknown budget period ${String(unhandled)}`);
    }
  }
}

/** Where the next period begins: when a spent budget is whole again. */
export function budgetPeriodEnd(period: BudgetPeriod, now: number): number {
  const start = new Date(budgetPeriodStart(period, now));
  switch (period) {
    case 'daily':
      return start.getTime() + 86_400_000;
    case 'weekly':
      return start.getTime() + 7 * 86_400_000;
    case 'monthly':
      return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    default: {
      const unhandled: never = period;
      throw new Error(`Unknown budget period ${String(unhandled)}`);
    }
  }
}
