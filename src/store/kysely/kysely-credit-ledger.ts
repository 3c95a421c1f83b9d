import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';

import type { Balance, CreditLedger, Hold, LedgerEntry } from '../../billing/credit-ledger.ts';
import { assertMicroCredits } from '../../billing/micro-credits.ts';
import type { Database, StoreDialect } from './kysely-database.ts';

/**
 * DESIGN.md §2 "Money" and §4: every change to entries or holds updates `balances` in the same
 * transaction, and every state change is a conditional update, so the balance cannot be
 * overspent nor a hold closed twice, whether the racing callers share a process or not.
 *
 * SQLite transactions here always begin with a write, so a deferred BEGIN takes the write lock
 * at its first statement and busy_timeout applies (a read-first transaction could instead fail
 * with SQLITE_BUSY_SNAPSHOT when another process wrote meanwhile).
 */
/**
 * Moves a hold out of `open` with a conditional update, so a second settle or release (or one
 * after the sweeper) changes nothing. Returns what the hold reserved, or undefined.
 */
async function closeOpenHold(
  transaction: Transaction<Database>,
  holdId: string,
  status: 'settled' | 'released',
): Promise<{ account_id: string; amount: number } | undefined> {
  return transaction
    .updateTable('holds')
    .set({ status })
    .where('id', '=', holdId)
    .where('status', '=', 'open')
    .returning(['account_id', 'amount'])
    .executeTakeFirst();
}

export class KyselyCreditLedger implements CreditLedger {
  readonly #database: Kysely<Database>;
  readonly #dialect: StoreDialect;

  constructor(database: Kysely<Database>, dialect: StoreDialect) {
    this.#database = database;
    this.#dialect = dialect;
  }

  async appendEntry(entry: LedgerEntry): Promise<void> {
    assertMicroCredits(entry.amount, 'entry amount', { allowNegative: true });
    await this.#database.transaction().execute(async (transaction) => {
      await transaction
        .insertInto('ledger_entries')
        .values({
          id: entry.id,
          account_id: entry.accountId,
          amount: entry.amount,
          kind: entry.kind,
          reason: entry.reason,
          request_id: entry.requestId,
          created_at: entry.createdAt,
        })
        .execute();
      // The first entry of an account creates its balance row; later ones add to it in place.
      await transaction
        .insertInto('balances')
        .values({ account_id: entry.accountId, balance: entry.amount, held: 0 })
        .onConflict((conflict) =>
          conflict.column('account_id').doUpdateSet((expression) => ({
            balance: expression('balances.balance', '+', expression.ref('excluded.balance')),
          })),
        )
        .execute();
    });
  }

  async getBalance(accountId: string): Promise<Balance> {
    const row = await this.#database
      .selectFrom('balances')
      .select(['balance', 'held'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    const balance = row?.balance ?? 0;
    const held = row?.held ?? 0;
    return { balance, held, available: balance - held };
  }

  /**
   * On every request's path. The reservation is one conditional UPDATE of the balance row:
   * concurrent callers queue on that row's lock and each re-checks the condition against the
   * committed value, so no two can reserve the same credits.
   */
  async placeHold(hold: Hold): Promise<boolean> {
    assertMicroCredits(hold.amount, 'hold amount', { allowNegative: false });
    if (this.#dialect === 'postgres') return this.#placeHoldInOneStatement(hold);

    return this.#database.transaction().execute(async (transaction) => {
      const reserved = await transaction
        .updateTable('balances')
        .set((expression) => ({ held: expression('held', '+', hold.amount) }))
        .where('account_id', '=', hold.accountId)
        .where(sql<boolean>`balance - held >= ${hold.amount}`)
        .executeTakeFirst();
      if (reserved.numUpdatedRows !== 1n) return false;
      await transaction
        .insertInto('holds')
        .values({
          id: hold.id,
          account_id: hold.accountId,
          amount: hold.amount,
          status: 'open',
          expires_at: hold.expiresAt,
        })
        .execute();
      return true;
    });
  }

  /**
   * PostgreSQL runs the reservation and the hold insert as one statement (a data-modifying
   * WITH): atomic without an explicit transaction, and one round trip instead of four.
   */
  async #placeHoldInOneStatement(hold: Hold): Promise<boolean> {
    const result = await this.#database
      .with('reserved', (database) =>
        database
          .updateTable('balances')
          .set((expression) => ({ held: expression('held', '+', hold.amount) }))
          .where('account_id', '=', hold.accountId)
          .where(sql<boolean>`balance - held >= ${hold.amount}`)
          .returning('account_id'),
      )
      .insertInto('holds')
      .columns(['id', 'account_id', 'amount', 'status', 'expires_at'])
      .expression((database) =>
        database
          .selectFrom('reserved')
          .select([
            sql<string>`cast(${hold.id} as text)`.as('id'),
            'account_id',
            sql<number>`cast(${hold.amount} as bigint)`.as('amount'),
            sql<string>`'open'`.as('status'),
            sql<number>`cast(${hold.expiresAt} as bigint)`.as('expires_at'),
          ]),
      )
      .executeTakeFirst();
    return result.numInsertedOrUpdatedRows === 1n;
  }

  async settleHold(
    holdId: string,
    usage: Omit<LedgerEntry, 'amount' | 'kind' | 'accountId'> & { cost: number },
  ): Promise<boolean> {
    assertMicroCredits(usage.cost, 'cost', { allowNegative: false });
    return this.#database.transaction().execute(async (transaction) => {
      const closed = await closeOpenHold(transaction, holdId, 'settled');
      if (closed === undefined) return false;
      await transaction
        .insertInto('ledger_entries')
        .values({
          id: usage.id,
          account_id: closed.account_id,
          // `0 - cost` rather than `-cost`: a zero cost stays 0, never -0.
          amount: 0 - usage.cost,
          kind: 'usage',
          reason: usage.reason,
          request_id: usage.requestId,
          created_at: usage.createdAt,
        })
        .execute();
      await transaction
        .updateTable('balances')
        .set((expression) => ({
          balance: expression('balance', '-', usage.cost),
          held: expression('held', '-', closed.amount),
        }))
        .where('account_id', '=', closed.account_id)
        .execute();
      return true;
    });
  }

  async releaseHold(holdId: string): Promise<boolean> {
    return this.#database.transaction().execute(async (transaction) => {
      const closed = await closeOpenHold(transaction, holdId, 'released');
      if (closed === undefined) return false;
      await transaction
        .updateTable('balances')
        .set((expression) => ({ held: expression('held', '-', closed.amount) }))
        .where('account_id', '=', closed.account_id)
        .execute();
      return true;
    });
  }

  /** DESIGN.md §2: holds that outlive a crash expire and are released. */
  async releaseExpiredHolds(now: number): Promise<number> {
    return this.#database.transaction().execute(async (transaction) => {
      const released = await transaction
        .updateTable('holds')
        .set({ status: 'released' })
        .where('status', '=', 'open')
        .where('expires_at', '<', now)
        .returning(['account_id', 'amount'])
        .execute();
      const heldByAccount = new Map<string, number>();
      for (const hold of released) {
        heldByAccount.set(hold.account_id, (heldByAccount.get(hold.account_id) ?? 0) + hold.amount);
      }
      // A fixed lock order keeps two concurrent sweeps from deadlocking on balance rows.
      for (const accountId of [...heldByAccount.keys()].sort()) {
        const amount = heldByAccount.get(accountId) ?? 0;
        await transaction
          .updateTable('balances')
          .set((expression) => ({ held: expression('held', '-', amount) }))
          .where('account_id', '=', accountId)
          .execute();
      }
      return released.length;
    });
  }

  async listEntries(accountId: string, limit: number): Promise<LedgerEntry[]> {
    const rows = await this.#database
      .selectFrom('ledger_entries')
      .select(['id', 'account_id', 'amount', 'kind', 'reason', 'request_id', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('sequence', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      amount: row.amount,
      kind: row.kind,
      reason: row.reason,
      requestId: row.request_id,
      createdAt: row.created_at,
    }));
  }
}
