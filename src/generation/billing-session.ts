import type { Principal } from '../auth/authenticator.ts';
import type { CreditLedger } from '../billing/credit-ledger.ts';
import { ledgerEntryId } from '../billing/ledger-entry-id.ts';
import { priceUsage, priceWorstCase } from '../billing/price-table.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { CatalogModel } from '../catalog/model-catalog.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { Usage } from '../canonical/usage.ts';
import type { LimitSet } from '../config/config-schema.ts';
import type { RateLimiter, RateLimitLease } from '../limits/rate-limiter.ts';
import { randomHex } from '../shared/random-hex.ts';
import type { OpenSessions } from './open-sessions.ts';
import { admitRequest } from './priced-call.ts';
import type { UsageStore } from './usage-store.ts';

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
}

export interface SessionStart {
  requestId: string;
  principal: Principal;
  model: CatalogModel;
  surface: string;
  estimatedInputTokens: number;
  maxOutputTokens: number;
  /** Told what the request came to once it ends, for its completion log line. */
  onEnd?: (summary: SessionSummary) => void;
}

/** What one generation came to, as its completion log line shows it. */
export interface SessionSummary {
  model: string;
  status: number;
  outcome: string;
  inputTokens: number;
  outputTokens: number;
  /** Micro-credits the usage is priced at (the charge, unless the balance fell short). */
  costMicroCredits: number;
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
  #holdId: string | undefined;
  #ended = false;

  private constructor(dependencies: BillingDependencies, start: SessionStart) {
    this.#dependencies = dependencies;
    this.#start = start;
    this.#startedAt = dependencies.now();
  }

  /** Admits and holds; throws 429 or 402 having changed nothing. */
  static async open(
    dependencies: BillingDependencies,
    start: SessionStart,
  ): Promise<BillingSession> {
    const session = new BillingSession(dependencies, start);
    await session.#admit();
    try {
      await session.#hold();
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
      outcome: 'refused',
      status,
      createdAt: now,
    });
  }

  async #admit(): Promise<void> {
    this.#lease = await admitRequest(
      this.#dependencies,
      this.#start.principal,
      this.#start.estimatedInputTokens + this.#start.maxOutputTokens,
    );
  }

  async #hold(): Promise<void> {
    const { ledger, now, holdTtlMs } = this.#dependencies;
    const { principal, model } = this.#start;
    const amount = priceWorstCase(
      this.#start.estimatedInputTokens,
      this.#start.maxOutputTokens,
      model.prices,
    );
    const holdId = `hold_${randomHex(16)}`;
    const placed = await ledger.placeHold({
      id: holdId,
      accountId: principal.account.id,
      amount,
      expiresAt: now() + holdTtlMs,
    });
    if (!placed) {
      const balance = await ledger.getBalance(principal.account.id);
      throw new ApiError(
        'insufficient_credits',
        `The credits balance cannot cover this request: it may cost up to ${(amount / 1e6).toFixed(6)} credits and ${(Math.max(0, balance.available) / 1e6).toFixed(6)} are available. Lower max tokens or add credits.`,
      );
    }
    this.#holdId = holdId;
    this.#dependencies.open?.opened();
  }

  async #releaseLease(actualTokens: number): Promise<void> {
    if (this.#lease === undefined) return;
    const lease = this.#lease;
    this.#lease = undefined;
    await this.#dependencies.rateLimiter.release(lease, {
      actualTokens,
      now: this.#dependencies.now(),
    });
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
    const { requestId, principal, model, surface } = this.#start;
    const usage = result.usage;
    const cost = usage === undefined ? 0 : priceUsage(usage, model.prices);
    const totalTokens =
      usage === undefined ? 0 : usage.inputTokens.total + usage.outputTokens.total;
    const createdAt = now();
    this.#start.onEnd?.({
      model: model.id,
      status: result.status,
      outcome: result.outcome,
      inputTokens: usage?.inputTokens.total ?? 0,
      outputTokens: usage?.outputTokens.total ?? 0,
      costMicroCredits: cost,
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
        outcome: result.outcome,
        status: result.status,
        createdAt,
      },
    });
    try {
      const [charged] = await Promise.all([settled, this.#releaseLease(totalTokens)]);
      return charged?.charged ?? 0;
    } finally {
      this.#dependencies.open?.ended();
    }
  }
}
