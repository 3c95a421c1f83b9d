import type { Principal } from '../auth/authenticator.ts';
import type { CreditLedger, Hold, SettlementResult } from '../billing/credit-ledger.ts';
import { affordOutputTokens } from '../billing/afford-output-tokens.ts';
import { ledgerEntryId } from '../billing/ledger-entry-id.ts';
import { priceUsage, priceWorstCase, type PriceTable } from '../billing/price-table.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { BudgetReservation, TokenBudgets } from '../billing/token-budgets.ts';
import type { CatalogModel } from '../catalog/model-catalog.ts';
import type { Usage } from '../canonical/usage.ts';
import type { LimitSet } from '../config/config-schema.ts';
import type { RateLimiter, RateLimitLease, RateLimitStanding } from '../limits/rate-limiter.ts';
import { randomHex } from '../shared/random-hex.ts';
import type { OpenSessions } from './open-sessions.ts';
import { admitWithStanding, type Admission } from './priced-call.ts';
import { refuseHold } from './refuse-hold.ts';
import type { UsageStore } from './usage-store.ts';

/**
 * Tries at placing a hold before a 402: the first at the call's whole limit, then at what the
 * balance read after each refusal affords, which requests in flight may take first.
 */
const holdAttempts = 3;

export interface BillingDependencies {
  ledger: CreditLedger;
  usage: UsageStore;
  /** Where every settlement goes: written at once, or kept and retried (docs/decisions/0017). */
  settlements: SettlementOutbox;
  rateLimiter: RateLimiter;
  limits: { token?: LimitSet; account?: LimitSet };
  holdTtlMs: number;
  now(): number;
  /** Counts the sessions holding credits, so a closing gateway waits for their settlements. */
  open?: OpenSessions;
  /**
   * The least output limit a call is sent when the balance cannot cover the one it asked for
   * (`billing.minimumOutputTokens`, docs/decisions/0100); never above what the call asked.
   */
  minimumOutputTokens?: number;
  /** Tokens' spend budgets (docs/decisions/0166); absent, no budget is enforced. */
  budgets?: TokenBudgets;
}

export interface SessionStart {
  requestId: string;
  principal: Principal;
  model: CatalogModel;
  /**
   * Fallback models the call may be answered by (docs/routing.md): the hold covers the dearest of
   * them all; the answer is priced as the model that gave it (`priceAs`).
   */
  alsoPricedAs?: readonly CatalogModel[];
  surface: string;
  /** The prompt's part of the hold: the best count of it the gateway has (bound-prompt-tokens.ts). */
  promptTokens: number;
  /** The most output the call may be sent upstream: what it asked, within the model's limit. */
  maxOutputTokens: number;
  /**
   * The least output limit the call may be lowered to when the balance cannot cover
   * `maxOutputTokens` (docs/decisions/0100); absent, it is never lowered (compaction, whose
   * upstream decides the length itself).
   */
  minimumOutputTokens?: number;
  /** Told what the request came to once it ends, for its completion log line. */
  onEnd?: (summary: SessionSummary) => void;
  /** When the first byte of the answer left for the client, if it has; for the usage record. */
  firstByteAt?: () => number | undefined;
}

/** What one generation came to, told to the generation service when its billing ends. */
export interface SessionSummary {
  model: string;
  status: number;
  outcome: string;
  inputTokens: number;
  outputTokens: number;
  /** Micro-credits the usage is priced at (the charge, unless the balance fell short). */
  costMicroCredits: number;
  /** The usage by token type, when the call had any. */
  usage?: Usage | undefined;
  /** Epoch ms the billing ended: the usage record's time. */
  endedAt: number;
}

export interface SessionEnd {
  usage: Usage | undefined;
  deployment: string | null;
  outcome: 'ok' | 'client_error' | 'upstream_error' | 'cancelled' | 'incomplete';
  status: number;
}

/**
 * The money and limits around one generation (docs/architecture.md): admit through the rate
 * limiter, hold the worst case, then settle the real cost with its usage record (at most what the
 * hold and the balance cover) and free the limiter lease. `end` runs once, whatever path
 * the call takes.
 */
export class BillingSession {
  readonly #dependencies: BillingDependencies;
  readonly #start: SessionStart;
  readonly #startedAt: number;
  #lease: RateLimitLease | undefined;
  #standing: RateLimitStanding | undefined;
  #holdId: string | undefined;
  #holdAmount = 0;
  #budget: BudgetReservation | undefined;
  #settled: SettlementResult | undefined;
  #outputLimit = 0;
  #ended = false;
  /** The model the answer is priced and recorded as: the one asked for, or a fallback. */
  #pricedAs: CatalogModel;

  private constructor(dependencies: BillingDependencies, start: SessionStart) {
    this.#dependencies = dependencies;
    this.#start = start;
    this.#pricedAs = start.model;
    this.#startedAt = dependencies.now();
  }

  /** A fallback model answered: the charge and the usage record are its own. */
  priceAs(model: CatalogModel): void {
    this.#pricedAs = model;
  }

  /**
   * The output limit the hold covers, the one to send upstream: the call's own, or less when the
   * balance could not cover that (docs/decisions/0100).
   */
  get outputLimit(): number {
    return this.#outputLimit;
  }

  /** Admits and holds; throws 429 or 402 having changed nothing. */
  static async open(
    dependencies: BillingDependencies,
    start: SessionStart,
  ): Promise<BillingSession> {
    const session = new BillingSession(dependencies, start);
    const admission = admitWithStanding(
      dependencies,
      start.principal,
      start.promptTokens + start.maxOutputTokens,
    );
    session.#admitted(admission instanceof Promise ? await admission : admission);
    try {
      const held = session.#hold();
      if (held !== undefined) await held;
    } catch (error) {
      await session.#releaseLease(0);
      throw error;
    }
    return session;
  }

  /** The usage record of a request refused before any upstream call (limits, balance). */
  static async recordRefusal(
    dependencies: BillingDependencies,
    start: SessionStart,
    status: number,
  ): Promise<void> {
    const now = dependencies.now();
    start.onEnd?.({
      model: start.model.id,
      status,
      outcome: 'refused',
      inputTokens: 0,
      outputTokens: 0,
      costMicroCredits: 0,
      endedAt: now,
    });
    await dependencies.usage.recordUsage({
      requestId: start.requestId,
      accountId: start.principal.account.id,
      apiKeyId: start.principal.apiKey.id,
      surface: start.surface,
      model: start.model.id,
      deployment: null,
      inputTokens: 0,
      inputCacheReadTokens: 0,
      inputCacheWrite5mTokens: 0,
      inputCacheWrite1hTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      cost: 0,
      shortfall: 0,
      latencyMs: 0,
      firstTokenMs: null,
      outcome: 'refused',
      status,
      createdAt: now,
    });
  }

  #admitted(admission: Admission | undefined): void {
    this.#lease = admission?.lease;
    this.#standing = admission?.standing;
  }

  /** Where the rate limits stood at admission, this request counted; undefined without limits. */
  get rateLimitStanding(): RateLimitStanding | undefined {
    return this.#standing;
  }

  /** Micro-credits the hold reserves (the worst case it was placed for). */
  get holdAmount(): number {
    return this.#holdAmount;
  }

  /**
   * What the ledger charged, once `end` has settled it; undefined before, and when the store
   * could not take the settlement and the outbox keeps it (the charge is not known yet).
   */
  get settlement(): SettlementResult | undefined {
    return this.#settled;
  }

  /**
   * docs/decisions/0100: the hold covers the prompt and the call's whole output limit when the
   * available balance allows; otherwise the largest limit it affords, down to the configured
   * minimum. The balance read and the hold are two steps, so another request may take the
   * credits in between: the hold is tried again with a fresh figure a few times before a 402.
   */
  #hold(): Promise<void> | undefined {
    const { principal, maxOutputTokens } = this.#start;
    const minimum = Math.min(this.#start.minimumOutputTokens ?? maxOutputTokens, maxOutputTokens);
    const models = [this.#start.model, ...(this.#start.alsoPricedAs ?? [])];
    // Only upstreams of the Anthropic and Converse dialects bill cache writes, the dearest
    // prompt rate.
    const writesCache = models.some((model) =>
      model.deployments.some(
        (deployment) =>
          deployment.dialects.messages === 'anthropic' ||
          deployment.dialects.messages === 'bedrock-converse',
      ),
    );
    const model = { prices: models.length === 1 ? this.#start.model.prices : dearest(models) };
    const holdId = `hold_${randomHex(16)}`;
    // docs/decisions/0166: the token's budget first, as the balance below. A token without a
    // budget (most) skips it without a promise.
    const { budgets } = this.#dependencies;
    if (budgets !== undefined && principal.apiKey.budget != null)
      return this.#holdWithinBudget(budgets, holdId, minimum, model, writesCache);
    return this.#holdCredits(holdId, maxOutputTokens, minimum, model, writesCache);
  }

  /**
   * The token's budget reserved first: the whole limit when what is left of it covers that, else
   * the largest it affords down to the same minimum; then the ledger's hold within it.
   */
  async #holdWithinBudget(
    budgets: TokenBudgets,
    holdId: string,
    minimum: number,
    model: { prices: PriceTable },
    writesCache: boolean,
  ): Promise<void> {
    const { principal, promptTokens, maxOutputTokens } = this.#start;
    const worstCase = (limit: number) =>
      priceWorstCase(promptTokens, limit, model.prices, writesCache);
    let limit = maxOutputTokens;
    this.#budget = await budgets.reserve(
      principal.apiKey,
      (remaining) => {
        if (worstCase(limit) <= remaining) return worstCase(limit);
        const affordable = affordOutputTokens(
          remaining,
          promptTokens,
          maxOutputTokens,
          model.prices,
          writesCache,
        );
        if (affordable < minimum) return undefined;
        limit = affordable;
        return worstCase(limit);
      },
      worstCase(minimum),
    );
    try {
      await this.#holdCredits(holdId, limit, minimum, model, writesCache);
    } catch (error) {
      if (this.#budget !== undefined) await this.#budget.release();
      this.#budget = undefined;
      throw error;
    }
  }

  /**
   * The ledger's hold, at most `ceiling` output tokens (what the token's budget affords).
   * Undefined when it is placed already: a ledger that decides at once (`placeHoldAtOnce`) and a
   * balance that covers the first try cost the request no turn of the event loop.
   */
  #holdCredits(
    holdId: string,
    ceiling: number,
    minimum: number,
    model: { prices: PriceTable },
    writesCache: boolean,
  ): Promise<void> | undefined {
    const first = this.#tryHold(holdId, ceiling, model, writesCache);
    if (first === true) return undefined;
    return this.#holdCreditsTrying(holdId, ceiling, minimum, model, writesCache, first);
  }

  /**
   * Places the hold, lowering the limit to what a fresh balance affords after each refusal, up
   * to `holdAttempts` tries; `first` is the first try's answer, at `ceiling`.
   */
  async #holdCreditsTrying(
    holdId: string,
    ceiling: number,
    minimum: number,
    model: { prices: PriceTable },
    writesCache: boolean,
    first: false | Promise<boolean>,
  ): Promise<void> {
    const { ledger } = this.#dependencies;
    const { principal, promptTokens, maxOutputTokens } = this.#start;
    let limit = ceiling;
    for (let attempt = 1; ; attempt += 1) {
      if (await (attempt === 1 ? first : this.#tryHold(holdId, limit, model, writesCache))) return;
      const balance = await ledger.getBalance(principal.account.id);
      const affordable = Math.min(
        ceiling,
        affordOutputTokens(
          balance.available,
          promptTokens,
          maxOutputTokens,
          model.prices,
          writesCache,
        ),
      );
      if (affordable < minimum || attempt === holdAttempts) {
        throw refuseHold(
          balance,
          priceWorstCase(promptTokens, minimum, model.prices, writesCache),
          'this request',
          minimum < maxOutputTokens
            ? `Even an output limit of ${minimum} tokens does not fit; add credits.`
            : 'Lower max tokens or add credits.',
        );
      }
      limit = affordable;
    }
  }

  /**
   * One try at the hold for `limit` output tokens: at once where the ledger decides at once,
   * else its promise. A placed hold is the session's.
   */
  #tryHold(
    holdId: string,
    limit: number,
    model: { prices: PriceTable },
    writesCache: boolean,
  ): boolean | Promise<boolean> {
    const { ledger } = this.#dependencies;
    const amount = priceWorstCase(this.#start.promptTokens, limit, model.prices, writesCache);
    const hold = this.#holdOf(holdId, amount);
    const placed = ledger.placeHoldAtOnce?.(hold) ?? ledger.placeHold(hold);
    if (typeof placed === 'boolean') {
      if (placed) this.#placed(holdId, amount, limit);
      return placed;
    }
    return placed.then((ok) => {
      if (ok) this.#placed(holdId, amount, limit);
      return ok;
    });
  }

  #holdOf(id: string, amount: number): Hold {
    const { now, holdTtlMs } = this.#dependencies;
    return {
      id,
      accountId: this.#start.principal.account.id,
      amount,
      expiresAt: now() + holdTtlMs,
    };
  }

  #placed(holdId: string, amount: number, limit: number): void {
    this.#holdId = holdId;
    this.#holdAmount = amount;
    this.#outputLimit = limit;
    this.#dependencies.open?.opened();
  }

  /** Undefined when it is done already (no lease, or a limiter that releases at once). */
  #releaseLease(actualTokens: number): Promise<unknown> | undefined {
    if (this.#lease === undefined) return undefined;
    const lease = this.#lease;
    this.#lease = undefined;
    const { rateLimiter } = this.#dependencies;
    const options = { actualTokens, now: this.#dependencies.now() };
    if (rateLimiter.releaseAtOnce === undefined) return rateLimiter.release(lease, options);
    rateLimiter.releaseAtOnce(lease, options);
    return undefined;
  }

  /**
   * Settles once; later calls do nothing. The charge and the usage record are one write
   * (CreditLedger.settle); when the store cannot take it, the outbox keeps it and retries, and
   * this still resolves so the client's answer ends cleanly (docs/decisions/0017). Returns the
   * micro-credits charged (0 while the settlement waits).
   */
  async end(result: SessionEnd): Promise<number> {
    if (this.#ended) return 0;
    this.#ended = true;
    const { settlements, now } = this.#dependencies;
    const { requestId, principal, surface } = this.#start;
    const model = this.#pricedAs;
    const usage = result.usage;
    const cost = usage === undefined ? 0 : priceUsage(usage, model.prices);
    const totalTokens =
      usage === undefined ? 0 : usage.inputTokens.total + usage.outputTokens.total;
    const createdAt = now();
    const firstByteAt = this.#start.firstByteAt?.();
    this.#start.onEnd?.({
      model: model.id,
      status: result.status,
      outcome: result.outcome,
      inputTokens: usage?.inputTokens.total ?? 0,
      outputTokens: usage?.outputTokens.total ?? 0,
      costMicroCredits: cost,
      usage,
      endedAt: createdAt,
    });
    const settled = settlements.submit({
      id: ledgerEntryId(createdAt),
      holdId: this.#holdId as string,
      accountId: principal.account.id,
      cost,
      reason: `${surface} ${model.id}`,
      requestId,
      createdAt,
      record: {
        requestId,
        accountId: principal.account.id,
        apiKeyId: principal.apiKey.id,
        surface,
        model: model.id,
        deployment: result.deployment,
        inputTokens: usage?.inputTokens.total ?? 0,
        inputCacheReadTokens: usage?.inputTokens.cacheRead ?? 0,
        inputCacheWrite5mTokens: usage?.inputTokens.cacheWrite5m ?? 0,
        inputCacheWrite1hTokens: usage?.inputTokens.cacheWrite1h ?? 0,
        outputTokens: usage?.outputTokens.total ?? 0,
        reasoningTokens: usage?.outputTokens.reasoning ?? 0,
        latencyMs: createdAt - this.#startedAt,
        firstTokenMs: firstByteAt === undefined ? null : Math.max(0, firstByteAt - this.#startedAt),
        outcome: result.outcome,
        status: result.status,
        createdAt,
      },
    });
    try {
      const released = this.#releaseLease(totalTokens);
      const [charged] =
        released === undefined ? [await settled] : await Promise.all([settled, released]);
      this.#settled = charged;
      return charged?.charged ?? 0;
    } finally {
      // After the charge is recorded: the budget's next read counts it (token-budgets.ts).
      if (this.#budget !== undefined) await this.#budget.release();
      this.#dependencies.open?.ended();
    }
  }
}

/** Each price the highest among the models: a hold that covers whichever answers. */
function dearest(models: readonly CatalogModel[]): PriceTable {
  const pick = (field: keyof PriceTable) => Math.max(...models.map((model) => model.prices[field]));
  return {
    input: pick('input'),
    output: pick('output'),
    cacheRead: pick('cacheRead'),
    cacheWrite5m: pick('cacheWrite5m'),
    cacheWrite1h: pick('cacheWrite1h'),
  };
}
