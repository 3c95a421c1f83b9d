import type {
  Balance,
  CreditLedger,
  EntryRefusal,
  Hold,
  LedgerEntry,
  Settlement,
  SettlementResult,
} from '../../billing/credit-ledger.ts';
import { assertMicroCredits } from '../../billing/micro-credits.ts';
import type { SqliteBillingWrites } from './sqlite-billing-writes.ts';

/**
 * The credits ledger of the one gateway process that owns an SQLite file (docs/decisions/0014;
 * the process lease in sqlite-process-lease.ts keeps a second one out).
 *
 * Holds live in this process's memory: they only matter while the process that placed them
 * runs, and a crash takes them with it, so there is nothing to release afterwards. A hold is
 * checked against the account's available balance as the last commit left it (or as read within
 * the last 20 ms), minus the charges queued for commit and the holds open here; one it would
 * refuse reads the row again, so a grant made by the operator CLI from another process counts at
 * once. Settled charges are committed in groups by `SqliteBillingWrites`, which checks each
 * against the row inside its commit (docs/decisions/0091).
 * Grants, adjustments and every read go to the durable Kysely ledger after the queue is flushed.
 */
export class SqliteOwnedLedger implements CreditLedger {
  readonly #durable: CreditLedger;
  readonly #writes: SqliteBillingWrites;
  readonly #holds = new Map<string, Hold>();
  readonly #heldByAccount = new Map<string, number>();

  constructor(writes: SqliteBillingWrites, durable: CreditLedger) {
    this.#durable = durable;
    this.#writes = writes;
  }

  async appendEntry(
    entry: LedgerEntry,
    options?: { allowNegative?: boolean },
  ): Promise<EntryRefusal | undefined> {
    this.#writes.flush();
    try {
      return await this.#durable.appendEntry(entry, options);
    } finally {
      this.#writes.forget(entry.accountId);
    }
  }

  async getBalance(accountId: string): Promise<Balance> {
    this.#writes.flush();
    const stored = await this.#durable.getBalance(accountId);
    const balance = stored.balance - this.#writes.pendingCharge(accountId);
    const held = stored.held + this.#held(accountId);
    return { balance, held, available: balance - held };
  }

  /**
   * No flush: getBalance writes the queued charges first (a transaction per call when asked per
   * request); here they are subtracted as queued, as a hold sees them.
   */
  peekAvailable(accountId: string): number | undefined {
    const available = this.#writes.available(accountId);
    return available === undefined ? undefined : this.#coverable(accountId, available);
  }

  async placeHold(hold: Hold): Promise<boolean> {
    return this.placeHoldAtOnce(hold);
  }

  placeHoldAtOnce(hold: Hold): boolean {
    assertMicroCredits(hold.amount, 'hold amount', { allowNegative: false });
    const covers = (available: number | undefined) =>
      available !== undefined && this.#coverable(hold.accountId, available) >= hold.amount;
    // A refusal is decided on the row as it is now, so a grant just made elsewhere counts.
    if (!covers(this.#writes.available(hold.accountId))) {
      if (!covers(this.#writes.available(hold.accountId, true))) return false;
    }
    this.#holds.set(hold.id, { ...hold });
    this.#heldByAccount.set(hold.accountId, this.#held(hold.accountId) + hold.amount);
    return true;
  }

  async settle(settlement: Settlement): Promise<SettlementResult> {
    assertMicroCredits(settlement.cost, 'cost', { allowNegative: false });
    const hold = this.#close(settlement.holdId);
    // Without an open hold this may be a retry or a replay of a settlement that landed.
    const landed = hold === undefined ? this.#writes.landed(settlement.id) : undefined;
    if (landed !== undefined) return landed;
    const accountId = hold?.accountId ?? settlement.accountId;
    // What the account still covers: its balance minus charges not yet committed and every other
    // hold, in this process's memory (this one is closed already) or in the file. The commit
    // checks it against the row once more (sqlite-billing-writes.ts).
    const basis = this.#writes.available(accountId) ?? 0;
    // Field by field rather than a rest and a spread of the settlement: this runs per request.
    return this.#writes.settle({
      id: settlement.id,
      accountId,
      cost: settlement.cost,
      reason: settlement.reason,
      requestId: settlement.requestId,
      createdAt: settlement.createdAt,
      record: settlement.record,
      basis,
      coverable: this.#coverable(accountId, basis),
    });
  }

  async releaseHold(holdId: string): Promise<boolean> {
    return this.#close(holdId) !== undefined;
  }

  async releaseExpiredHolds(now: number): Promise<number> {
    let released = 0;
    for (const hold of this.#holds.values()) {
      if (hold.expiresAt < now && this.#close(hold.id) !== undefined) released += 1;
    }
    // Holds written to the file by the durable ledger (an older version, or a process that ran
    // on this file before this one took it over) expire the durable way.
    const releasedInFile = await this.#durable.releaseExpiredHolds(now);
    if (releasedInFile > 0) this.#writes.forget();
    return released + releasedInFile;
  }

  async listEntries(accountId: string, limit: number): Promise<LedgerEntry[]> {
    this.#writes.flush();
    return this.#durable.listEntries(accountId, limit);
  }

  /** The file's available balance less charges queued for commit and the holds open here. */
  #coverable(accountId: string, available: number): number {
    return available - this.#writes.pendingCharge(accountId) - this.#held(accountId);
  }

  #held(accountId: string): number {
    return this.#heldByAccount.get(accountId) ?? 0;
  }

  #close(holdId: string): Hold | undefined {
    const hold = this.#holds.get(holdId);
    if (hold === undefined) return undefined;
    this.#holds.delete(holdId);
    const left = this.#held(hold.accountId) - hold.amount;
    if (left === 0) this.#heldByAccount.delete(hold.accountId);
    else this.#heldByAccount.set(hold.accountId, left);
    return hold;
  }
}
