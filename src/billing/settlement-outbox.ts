import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { CreditLedger, Settlement, SettlementResult } from './credit-ledger.ts';

export interface SettlementOutboxOptions {
  ledger: CreditLedger;
  /**
   * Where settlements that could not be written wait, one JSON file each, so that a restart
   * replays them (docs/decisions/0017). Undefined keeps them in memory only (tests, throwaway
   * stores).
   */
  directory: string | undefined;
  /** How long to wait before trying the waiting settlements again. */
  retryMs: number;
  /** Told of every settlement that landed, with what it charged. */
  onSettled?(settlement: Settlement, result: SettlementResult): void;
  /** Told of every failed attempt; the settlement is kept either way. */
  onFailure?(error: unknown, settlement: Settlement): void;
  /** Told of a kept file that cannot be read back (left where it is). */
  onUnreadable?(error: unknown, file: string): void;
  /** Told of how many settlements are waiting whenever that changes. */
  onWaiting?(count: number): void;
}

const fileSuffix = '.settlement.json';

/**
 * docs/decisions/0017: a settlement that cannot be written (the store is down, a write fails) is
 * kept and retried until it lands, and the caller is never failed for it, so a client's stream ends
 * cleanly whatever the store does. Kept settlements are written to a file of their own before
 * the caller goes on, and replayed at start (`replay`) and on every retry: a crash or a restart
 * loses none. A replay can never charge twice: CreditLedger.settle is idempotent per settlement
 * id (the usage record's unique settlement id).
 */
export class SettlementOutbox {
  readonly #options: SettlementOutboxOptions;
  readonly #waiting = new Map<string, Settlement>();
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

  /** Loads the settlements a previous run left waiting and tries them at once. */
  async replay(): Promise<void> {
    const { directory } = this.#options;
    if (directory === undefined) return;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names.filter((item) => item.endsWith(fileSuffix))) {
      const text = await readFile(path.join(directory, name), 'utf8');
      try {
        const settlement = JSON.parse(text) as Settlement;
        this.#waiting.set(settlement.id, settlement);
      } catch (error) {
        // Not a settlement this gateway wrote (files are renamed into place whole): left on
        // disk for the operator to look at.
        this.#options.onUnreadable?.(error, path.join(directory, name));
      }
    }
    this.#options.onWaiting?.(this.#waiting.size);
    await this.flush();
  }

  /** Tries every waiting settlement once; those that fail again stay for the next retry. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing ??= this.#flushWaiting().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  /** Stops retrying (the settlements on disk are replayed by the next start). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #flushWaiting(): Promise<void> {
    for (const settlement of [...this.#waiting.values()]) {
      try {
        const result = await this.#options.ledger.settle(settlement);
        this.#waiting.delete(settlement.id);
        await this.#forget(settlement.id);
        this.#options.onSettled?.(settlement, result);
      } catch (error) {
        this.#options.onFailure?.(error, settlement);
      }
    }
    this.#options.onWaiting?.(this.#waiting.size);
    if (this.#waiting.size > 0) this.#schedule();
  }

  async #keep(settlement: Settlement): Promise<void> {
    this.#waiting.set(settlement.id, settlement);
    this.#options.onWaiting?.(this.#waiting.size);
    const { directory } = this.#options;
    if (directory !== undefined) {
      try {
        await mkdir(directory, { recursive: true });
        // Written aside and renamed into place, so a replay never reads half a file.
        const file = this.#file(settlement.id);
        await writeFile(`${file}.partial`, JSON.stringify(settlement));
        await rename(`${file}.partial`, file);
      } catch (error) {
        // Still kept in memory and retried; only a crash before it lands would lose it.
        this.#options.onFailure?.(error, settlement);
      }
    }
    this.#schedule();
  }

  async #forget(settlementId: string): Promise<void> {
    if (this.#options.directory !== undefined) await rm(this.#file(settlementId), { force: true });
  }

  #file(settlementId: string): string {
    return path.join(this.#options.directory as string, `${settlementId}${fileSuffix}`);
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#options.retryMs).unref();
  }
}
