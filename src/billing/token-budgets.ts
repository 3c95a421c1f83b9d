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
  /** Micro-credits charged to the token's calls recorded in `[since, until)` (no end: now). */
  spentByToken(apiKeyId: string, since: number, until?: number): Promise<number>;
  now(): number;
}

/**
 * A token's spend up to a time `upTo` well in the past, so a call reads only the records since
 * then: a month of a busy token is otherwise a sum over every one of its calls, per call.
 */
interface SettledSpend {
  periodStart: number;
  upTo: number;
  spent: number;
}

/**
 * How far behind now the summed spend stops: a charge is recorded at its settlement's time and
 * written within milliseconds (the embedded store's group commit), so records older than this
 * are all written. A settlement the outbox keeps while the store is down may land later with an
 * older time (docs/decisions/0166).
 */
const settledAfterMs = 5 * 60_000;
/** How often the summed spend moves forward. */
const advanceEveryMs = 60_000;

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
  readonly #settled = new Map<string, SettledSpend>();

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
    const settled = await this.#settledSpend(apiKeyId, periodStart, now);
    const spent = settled.spent + (await this.#dependencies.spentByToken(apiKeyId, settled.upTo));
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

  /** The spend summed up to a time well past, moved forward once a minute. */
  async #settledSpend(apiKeyId: string, periodStart: number, now: number): Promise<SettledSpend> {
    const upTo = Math.max(periodStart, now - settledAfterMs);
    let settled = this.#settled.get(apiKeyId);
    if (settled === undefined || settled.periodStart !== periodStart) {
      settled = { periodStart, upTo: periodStart, spent: 0 };
    }
    if (upTo - settled.upTo >= advanceEveryMs || settled.upTo === periodStart) {
      const spent = await this.#dependencies.spentByToken(apiKeyId, settled.upTo, upTo);
      settled = { periodStart, upTo, spent: settled.spent + spent };
      this.#settled.set(apiKeyId, settled);
    }
    return settled;
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
