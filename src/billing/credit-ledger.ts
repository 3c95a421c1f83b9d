/**
 * The credits ledger port (DESIGN.md §2 "Money"). Amounts are integer micro-credits, never
 * floats. Entries are append-only; the balance is an aggregate maintained with each entry so the
 * request path never sums history. A hold reserves part of the available balance atomically, so
 * concurrent requests can never overspend it, on one process or many.
 */
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

export interface CreditLedger {
  /** Appends a grant or adjustment entry and updates the balance in one transaction. */
  appendEntry(entry: LedgerEntry): Promise<void>;
  getBalance(accountId: string): Promise<Balance>;
  /**
   * Reserves `hold.amount` if the available balance covers it, atomically. Returns false and
   * reserves nothing when it does not.
   */
  placeHold(hold: Hold): Promise<boolean>;
  /**
   * Closes an open hold, appends a usage entry of `-cost` and frees the rest, in one
   * transaction. The cost may exceed the hold (the real usage outran the estimate); the balance
   * may then go below zero and later holds fail. Returns false when the hold was not open (already
   * settled, released or expired), in which case nothing changes.
   */
  settleHold(
    holdId: string,
    usage: Omit<LedgerEntry, 'amount' | 'kind' | 'accountId'> & { cost: number },
  ): Promise<boolean>;
  /** Frees an open hold without charging; false when it was not open. */
  releaseHold(holdId: string): Promise<boolean>;
  /** Releases every open hold whose `expiresAt` is before `now`; returns how many. */
  releaseExpiredHolds(now: number): Promise<number>;
  /** Newest first. */
  listEntries(accountId: string, limit: number): Promise<LedgerEntry[]>;
}
