/**
 * The credits ledger port (docs/architecture.md). Amounts are integer micro-credits, never
 * floats. Entries are append-only; the balance is an aggregate maintained with each entry so the
 * request path never sums history. A hold reserves part of the available balance atomically, so
 * concurrent requests can never overspend it, on one process or many.
 */
import type { UsageRecord } from '../generation/usage-store.ts';

export type LedgerEntryKind = 'grant' | 'adjustment' | 'usage';

export interface LedgerEntry {
  id: string;
  accountId: string;
  /** Signed micro-credits: positive adds to the balance. */
  amount: number;
  kind: LedgerEntryKind;
  reason: string;
  /** The request that caused a usage entry. */
  requestId: string | null;
  createdAt: number;
}

export interface Balance {
  /** Sum of all entries. */
  balance: number;
  /** Sum of open holds. */
  held: number;
  /** balance − held: what a new hold may reserve. */
  available: number;
}

export interface Hold {
  id: string;
  accountId: string;
  amount: number;
  expiresAt: number;
}

export interface Settlement {
  /** Unique per call: the id of its usage entry, and what makes a retry change nothing. */
  id: string;
  holdId: string;
  accountId: string;
  /** The full price of the usage, in micro-credits. */
  cost: number;
  reason: string;
  requestId: string;
  createdAt: number;
  /** Written with the charge; its `cost` and `shortfall` are set from what was charged. */
  record: Omit<UsageRecord, 'cost' | 'shortfall'>;
}

export interface SettlementResult {
  /** Micro-credits taken from the balance. */
  charged: number;
  /** Micro-credits of the cost the hold and the balance could not cover; never charged. */
  shortfall: number;
}

/** Why an operator entry was refused (it changed nothing). */
export type EntryRefusal = 'below_zero' | 'beyond_exact_range';

export interface CreditLedger {
  /**
   * Appends a grant or adjustment entry and updates the balance in one transaction. Refuses,
   * changing nothing, an entry that would leave the balance past Number.MAX_SAFE_INTEGER
   * (either sign), or below zero unless `allowNegative` (only an operator's explicit
   * choice may take a balance below zero).
   */
  appendEntry(
    entry: LedgerEntry,
    options?: { allowNegative?: boolean },
  ): Promise<EntryRefusal | undefined>;
  getBalance(accountId: string): Promise<Balance>;
  /**
   * The available balance as this process can tell it without a write or a round trip (the
   * embedded store: the row as its last commit left it, less queued charges and open holds), for
   * the balance an answer tells (docs/decisions/0149). Undefined when the store cannot tell it
   * that cheaply; the caller then reads `getBalance`.
   */
  peekAvailable?(accountId: string): number | undefined;
  /**
   * Reserves `hold.amount` if the available balance covers it, atomically. Returns false and
   * reserves nothing when it does not.
   */
  placeHold(hold: Hold): Promise<boolean>;
  /**
   * `placeHold` decided at once, for a ledger that keeps its holds in this process (the embedded
   * store): the request path then spends no turn of the event loop on it. Throws where
   * `placeHold` rejects.
   */
  placeHoldAtOnce?(hold: Hold): boolean;
  /**
   * Settles one call in one transaction: closes its hold when still open, charges the cost as a
   * usage entry and writes its usage record. The charge never exceeds what the hold and the
   * balance still cover (docs/decisions/0017): the rest is the shortfall, recorded on the usage
   * record and never charged, so no balance goes below zero through client traffic. A hold that is
   * no longer open (the sweeper released it during a long call) is charged the same way without it.
   * The settlement's id makes it idempotent: settling an id that already landed changes nothing and
   * answers what was charged then, so a settlement whose outcome was lost may be retried.
   */
  settle(settlement: Settlement): Promise<SettlementResult>;
  /** Frees an open hold without charging; false when it was not open. */
  releaseHold(holdId: string): Promise<boolean>;
  /** Releases every open hold whose `expiresAt` is before `now`; returns how many. */
  releaseExpiredHolds(now: number): Promise<number>;
  /** Newest first. */
  listEntries(accountId: string, limit: number): Promise<LedgerEntry[]>;
}
