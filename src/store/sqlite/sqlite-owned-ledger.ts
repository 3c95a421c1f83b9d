import type BetterSqlite3 from 'better-sqlite3';

import { capSettlementCharge } from '../../billing/cap-settlement-charge.ts';
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

interface BalanceRow {
  balance: bigint;
  held: bigint;
}

/**
 * The credits ledger of the one gateway process that owns an SQLite file (DESIGN.md §4
 * "Embedded default"; the process lease in sqlite-process-lease.ts keeps a second one out).
 *
 * Holds live in this process's memory: they only matter while the process that placed them
 * runs, and a crash takes them with it, so there is nothing to release afterwards. A hold is
 * checked against the balance row read from the file at that moment (so a grant made by the
 * operator CLI from another process counts at once), minus the charges queued for commit and
 * the holds open here. Settled charges are committed in groups by `SqliteBillingWrites`.
 * Grants, adjustments and every read go to the durable Kysely ledger after the queue is flushed.
 */
export class SqliteOwnedLedger implements CreditLedger {
  readonly #durable: CreditLedger;
  readonly #writes: SqliteBillingWrites;
  readonly #readBalance: BetterSqlite3.Statement<[string], BalanceRow>;
  readonly #holds = new Map<string, Hold>();
  readonly #heldByAccount = new Map<string, number>();

  constructor(
    connection: BetterSqlite3.Database,
    writes: SqliteBillingWrites,
    durable: CreditLedger,
  ) {
    this.#durable = durable;
    this.#writes = writes;
    this.#readBalance = connection
      .prepare<[string], BalanceRow>('select balance, held from balances where account_id = ?')
      .safeIntegers(true);
  }

  async appendEntry(
    entry: LedgerEntry,
    options?: { allowNegative?: boolean },
  ): Promise<EntryRefusal | undefined> {
    this.#writes.flush();
    return this.#durable.appendEntry(entry, options);
  }

  async getBalance(accountId: string): Promise<Balance> {
    this.#writes.flush();
    const stored = await this.#durable.getBalance(accountId);
    const balance = stored.balance - this.#writes.pendingCharge(accountId);
    const held = stored.held + this.#held(accountId);
    return { balance, held, available: balance - held };
  }

  async placeHold(hold: Hold): Promise<boolean> {
    assertMicroCredits(hold.amount, 'hold amount', { allowNegative: false });
    const row = this.#readBalance.get(hold.accountId);
    if (row === undefined) return false;
    const available =
      exactNumber(row.balance - row.held, hold.accountId) -
      this.#writes.pendingCharge(hold.accountId) -
      this.#held(hold.accountId);
    if (available < hold.amount) return false;
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
    const row = this.#readBalance.get(accountId);
    // What the account still covers: its balance minus charges not yet committed and every other
    // hold, in this process's memory (this one is closed already) or in the file.
    const coverable =
      row === undefined
        ? 0
        : exactNumber(row.balance - row.held, accountId) -
          this.#writes.pendingCharge(accountId) -
          this.#held(accountId);
    const result = capSettlementCharge(settlement.cost, coverable);
    await this.#writes.settle({
      id: settlement.id,
      accountId,
      charge:
        result.charged === 0
          ? undefined
          : {
              id: settlement.id,
              accountId,
              amount: 0 - result.charged,
              reason: settlement.reason,
              requestId: settlement.requestId,
              createdAt: settlement.createdAt,
            },
      record: { ...settlement.record, cost: result.charged, shortfall: result.shortfall },
    });
    return result;
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
    return released + (await this.#durable.releaseExpiredHolds(now));
  }

  async listEntries(accountId: string, limit: number): Promise<LedgerEntry[]> {
    this.#writes.flush();
    return this.#durable.listEntries(accountId, limit);
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

const largest = BigInt(Number.MAX_SAFE_INTEGER);

function exactNumber(value: bigint, accountId: string): number {
  if (value > largest || value < -largest) {
    throw new RangeError(`The balance of ${accountId} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return Number(value);
}
