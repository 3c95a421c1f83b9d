import type { ApiKeyRecord } from '../auth/api-key-store.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { formatCredits } from './micro-credits.ts';
import { budgetPeriodEnd, budgetPeriodStart, type TokenBudget } from './token-budget.ts';

/** What a budget reservation holds; `release` once the call's charge is recorded. */
export interface BudgetReservation {
  amount: number;
  release(): Promise<void>;
}

/** Where a token's budget stands: for its 402 and for the account holder's view. */
export interface BudgetStanding {
  budget: TokenBudget;
  /** Charged to the token's calls since the period began. */
  spent: number;
  /** Reserved by the token's calls in flight in this process. */
  reserved: number;
  /** What a new call may still reserve; never below 0. */
  remaining: number;
  periodStart: number;
  resetsAt: number;
}

export interface TokenBudgetDependencies {
  /** Micro-credits charged to the token's calls recorded at or after `since`. */
  spentByToken(apiKeyId: string, since: number): Promise<number>;
  now(): number;
}

/**
 * docs/decisions/0166: a token's spend budget, enforced where the call's hold is taken. The spend
 * of the period is read from the usage records (each one is its charge in the ledger) and the
 * calls in flight reserve their hold's amount until their charge is recorded, so concurrent calls
 * of one token cannot together be held past the budget.
 *
 * A read of the spend and the reservation that follows it run under a per-token lock, and so
 * does every release; a call's charge is recorded before its reservation is released, so a read
 * sees each call either reserved, charged, or both (counted twice, which only refuses early),
 * never neither. The reservations live in this process: gateways sharing a PostgreSQL store each
 * see the others' calls only once they are charged.
 */
export class TokenBudgets {
  readonly #dependencies: TokenBudgetDependencies;
  readonly #reserved = new Map<string, number>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(dependencies: TokenBudgetDependencies) {
    this.#dependencies = dependencies;
  }

  /**
   * Reserves what `choose` picks from what the budget has left: the amount to reserve, or
   * undefined when nothing it would accept fits, which refuses with 402 `budget_exceeded`
   * (`minimum` names the least the call needed, for the message). Undefined for a token
   * without a budget.
   */
  async reserve(
    apiKey: Pick<ApiKeyRecord, 'id'> & { budget?: TokenBudget | null },
    choose: (remaining: number) => number | undefined,
    minimum: number,
  ): Promise<BudgetReservation | undefined> {
    const budget = apiKey.budget ?? null;
    if (budget === null) return undefined;
    return this.#locked(apiKey.id, async () => {
      const standing = await this.#standing(apiKey.id, budget);
      const amount = choose(standing.remaining);
      if (amount === undefined) throw refuseBudget(standing, minimum);
      this.#reserved.set(apiKey.id, standing.reserved + amount);
      let released = false;
      return {
        amount,
        release: () =>
          this.#locked(apiKey.id, async () => {
            if (released) return;
            released = true;
            const left = (this.#reserved.get(apiKey.id) ?? 0) - amount;
            if (left <= 0) this.#reserved.delete(apiKey.id);
            else this.#reserved.set(apiKey.id, left);
          }),
      };
    });
  }

  /** Where the token's budget stands now; undefined for a token without one. */
  async standing(apiKey: Pick<ApiKeyRecord, 'id' | 'budget'>): Promise<BudgetStanding | undefined> {
    const budget = apiKey.budget;
    if (budget === null) return undefined;
    return this.#locked(apiKey.id, () => this.#standing(apiKey.id, budget));
  }

  async #standing(apiKeyId: string, budget: TokenBudget): Promise<BudgetStanding> {
    const now = this.#dependencies.now();
    const periodStart = budgetPeriodStart(budget.period, now);
    const spent = await this.#dependencies.spentByToken(apiKeyId, periodStart);
    const reserved = this.#reserved.get(apiKeyId) ?? 0;
    return {
      budget,
      spent,
      reserved,
      remaining: Math.max(0, budget.amount - spent - reserved),
      periodStart,
      resetsAt: budgetPeriodEnd(budget.period, now),
    };
  }

  /** Runs `work` after every earlier locked work of the token has finished. */
  async #locked<Value>(apiKeyId: string, work: () => Promise<Value>): Promise<Value> {
    const before = this.#locks.get(apiKeyId) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => undefined);
    this.#locks.set(apiKeyId, tail);
    try {
      return await run;
    } finally {
      if (this.#locks.get(apiKeyId) === tail) this.#locks.delete(apiKeyId);
    }
  }
}

function refuseBudget(standing: BudgetStanding, minimum: number): ApiError {
  const { budget } = standing;
  const inFlight =
    standing.reserved > 0
      ? `, ${formatCredits(standing.reserved)} more are held for its calls in flight`
      : '';
  return new ApiError(
    'budget_exceeded',
    `This token's ${budget.period} budget of ${formatCredits(budget.amount)} credits cannot cover this request: it may cost up to ${formatCredits(minimum)} credits, ${formatCredits(standing.spent)} were charged this period${inFlight}. The budget resets at ${new Date(standing.resetsAt).toISOString()}.`,
    {
      details: {
        budget_micro: budget.amount,
        budget_period: budget.period,
        spent_micro: standing.spent,
        reserved_micro: standing.reserved,
        required_micro: minimum,
        resets_at: new Date(standing.resetsAt).toISOString(),
      },
    },
  );
}
