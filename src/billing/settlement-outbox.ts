import type { CreditLedger, Settlement, SettlementResult } from './credit-ledger.ts';
import type { SettlementSpool } from './settlement-spool.ts';

export interface SettlementOutboxOptions {
  ledger: CreditLedger;
  /**
   * Where settlements that could not be written wait, so that a restart, or another process
   * sharing the spool, lands them (docs/decisions/0017, 0161). Undefined keeps them in memory only
   * (tests, throwaway stores).
   */
  spool: SettlementSpool | undefined;
  /** How long to wait before trying the waiting settlements again. */
  retryMs: number;
  /** Told of every settlement that landed, with what it charged. */
  onSettled?(settlement: Settlement, result: SettlementResult): void;
  /** Told of every failed attempt; the settlement is kept either way. */
  onFailure?(error: unknown, settlement: Settlement): void;
  /** Told of a kept entry that cannot be read back (left where it is). */
  onUnreadable?(error: unknown, where: string): void;
  /** Told when the spool cannot be read; what it holds is tried on the next retry. */
  onSpoolError?(error: unknown): void;
  /** Told of how many settlements are waiting whenever that changes. */
  onWaiting?(count: number): void;
}

/**
 * docs/decisions/0017: a settlement that cannot be written (the store is down, a write fails) is
 * kept and retried until it lands, and the caller is never failed for it, so a client's stream ends
 * cleanly whatever the store does. Kept settlements are put in the spool before the caller goes
 * on, and every flush (at start, on each retry, on the minute sweep) reads the spool again: a
 * crash or a restart loses none, and with a shared spool a process lands what another kept
 * (docs/decisions/0161). A replay can never charge twice: CreditLedger.settle is idempotent per
 * settlement id (the usage record's unique settlement id).
 */
export class SettlementOutbox {
  readonly #options: SettlementOutboxOptions;
  readonly #waiting = new Map<string, Settlement>();
  /** Unreadable entries already reported: each flush reads the spool again. */
  readonly #reported = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(options: SettlementOutboxOptions) {
    this.#options = options;
  }

  /** How many settlements wait for the store. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * Settles now; if that fails, keeps the settlement for a retry and answers undefined. Never
   * rejects because of the store.
   */
  async submit(settlement: Settlement): Promise<SettlementResult | undefined> {
    try {
      const result = await this.#options.ledger.settle(settlement);
      this.#options.onSettled?.(settlement, result);
      return result;
    } catch (error) {
      this.#options.onFailure?.(error, settlement);
      await this.#keep(settlement);
      return undefined;
    }
  }

  /** Lands the settlements a previous run (or another process) left in the spool. */
  async replay(): Promise<void> {
    await this.flush();
  }

  /**
   * Reads the spool and tries every waiting settlement once; those that fail again stay for the
   * next retry.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing ??= this.#flushWaiting().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  /** Stops retrying (the settlements in the spool are landed by the next flush anywhere). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #flushWaiting(): Promise<void> {
    await this.#load();
    for (const settlement of [...this.#waiting.values()]) {
      try {
        const result = await this.#options.ledger.settle(settlement);
        this.#waiting.delete(settlement.id);
        await this.#forget(settlement);
        this.#options.onSettled?.(settlement, result);
      } catch (error) {
        this.#options.onFailure?.(error, settlement);
      }
    }
    this.#options.onWaiting?.(this.#waiting.size);
    if (this.#waiting.size > 0) this.#schedule();
  }

  async #load(): Promise<void> {
    const { spool } = this.#options;
    if (spool === undefined) return;
    try {
      const kept = await spool.load((error, where) => {
        if (this.#reported.has(where)) return;
        this.#reported.add(where);
        this.#options.onUnreadable?.(error, where);
      });
      for (const settlement of kept) this.#waiting.set(settlement.id, settlement);
    } catch (error) {
      this.#options.onSpoolError?.(error);
    }
  }

  async #keep(settlement: Settlement): Promise<void> {
    this.#waiting.set(settlement.id, settlement);
    this.#options.onWaiting?.(this.#waiting.size);
    try {
      await this.#options.spool?.keep(settlement);
    } catch (error) {
      // Still kept in memory and retried; only a crash before it lands would lose it.
      this.#options.onFailure?.(error, settlement);
    }
    this.#schedule();
  }

  async #forget(settlement: Settlement): Promise<void> {
    try {
      await this.#options.spool?.forget(settlement.id);
    } catch (error) {
      // Landed: a copy left in the spool only lands again as the same charge, once.
      this.#options.onSpoolError?.(error);
    }
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#options.retryMs).unref();
  }
}
