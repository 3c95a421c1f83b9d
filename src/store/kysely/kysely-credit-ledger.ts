import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';

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
import type { Database, StoreDialect } from './kysely-database.ts';
import { encodeUsageRecord } from './kysely-usage-store.ts';
import { UsageRollupSums } from './usage-rollup-sums.ts';
import { copyWith } from '../../shared/copy-with.ts';

class EntryRefused extends Error {
  readonly refusal: EntryRefusal;

  constructor(refusal: EntryRefusal) {
    super(refusal);
    this.refusal = refusal;
  }
}

/** PostgreSQL's unique_violation, or SQLite's unique constraint failure. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * docs/architecture.md: every change to entries or holds updates `balances` in the same
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

  async appendEntry(
    entry: LedgerEntry,
    options: { allowNegative?: boolean } = {},
  ): Promise<EntryRefusal | undefined> {
    assertMicroCredits(entry.amount, 'entry amount', { allowNegative: true });
    const floor = options.allowNegative === true ? -Number.MAX_SAFE_INTEGER : 0;
    try {
      await this.#database.transaction().execute(async (transaction) => {
        // The first entry of an account creates its balance row (a write first, see above).
        await transaction
          .insertInto('balances')
          .values({ account_id: entry.accountId, balance: 0, held: 0 })
          .onConflict((conflict) => conflict.column('account_id').doNothing())
          .execute();
        const changed = await transaction
          .updateTable('balances')
          .set((expression) => ({ balance: expression('balance', '+', entry.amount) }))
          .where('account_id', '=', entry.accountId)
          .where(
            sql<boolean>`balance + ${entry.amount} between ${floor} and ${Number.MAX_SAFE_INTEGER}`,
          )
          .executeTakeFirst();
        if (changed.numUpdatedRows !== 1n) {
          const row = await transaction
            .selectFrom('balances')
            .select('balance')
            .where('account_id', '=', entry.accountId)
            .executeTakeFirstOrThrow();
          const next = row.balance + entry.amount;
          throw new EntryRefused(
            Math.abs(next) > Number.MAX_SAFE_INTEGER ? 'beyond_exact_range' : 'below_zero',
          );
        }
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
      });
    } catch (error) {
      // Thrown inside the transaction so that it rolls back: a refusal writes nothing.
      if (error instanceof EntryRefused) return error.refusal;
      throw error;
    }
    return undefined;
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

  async settle(settlement: Settlement): Promise<SettlementResult> {
    assertMicroCredits(settlement.cost, 'cost', { allowNegative: false });
    try {
      return await this.#database
        .transaction()
        .execute((transaction) => this.#settleIn(transaction, settlement));
    } catch (error) {
      // A concurrent replay of the same settlement committed first: it landed once, as wanted.
      const landed = isUniqueViolation(error)
        ? await this.#landed(this.#database, settlement)
        : undefined;
      if (landed !== undefined) return landed;
      throw error;
    }
  }

  async #settleIn(
    transaction: Transaction<Database>,
    settlement: Settlement,
  ): Promise<SettlementResult> {
    // Closing the hold is the first statement: a write, so SQLite takes its lock here.
    const closed = await closeOpenHold(transaction, settlement.holdId, 'settled');
    if (closed === undefined) {
      const landed = await this.#landed(transaction, settlement);
      if (landed !== undefined) return landed;
    }
    const accountId = closed?.account_id ?? settlement.accountId;
    const released = closed?.amount ?? 0;
    let balanceQuery = transaction
      .selectFrom('balances')
      .select(['balance', 'held'])
      .where('account_id', '=', accountId);
    // PostgreSQL: lock the row so the cap below is computed on the balance this update changes.
    if (this.#dialect === 'postgres') balanceQuery = balanceQuery.forUpdate();
    const row = await balanceQuery.executeTakeFirst();
    const heldByOthers = (row?.held ?? 0) - released;
    const result = capSettlementCharge(settlement.cost, (row?.balance ?? 0) - heldByOthers);
    if (result.charged > 0 || released > 0) {
      await transaction
        .updateTable('balances')
        .set((expression) => ({
          balance: expression('balance', '-', result.charged),
          held: expression('held', '-', released),
        }))
        .where('account_id', '=', accountId)
        .execute();
    }
    await transaction
      .insertInto('usage_records')
      .values(
        encodeUsageRecord(
          copyWith(settlement.record, {
            charged: result.charged,
            shortfall: result.shortfall,
            cost: result.charged,
          }),
          settlement.id,
          // The record is the charge's ledger entry (docs/decisions/0093).
          result.charged > 0 ? settlement.reason : null,
        ),
      )
      .execute();
    // On PostgreSQL the rollup trigger adds the record to its hour (migration 0014).
    if (this.#dialect === 'sqlite') {
      await UsageRollupSums.writeOne(transaction, settlement.record, result.charged);
    }
    return result;
  }

  /** What an already written settlement charged, if it was written. */
  async #landed(
    database: Kysely<Database> | Transaction<Database>,
    settlement: Settlement,
  ): Promise<SettlementResult | undefined> {
    const row = await database
      .selectFrom('usage_records')
      .select(['cost', 'shortfall'])
      .where('settlement_id', '=', settlement.id)
      .executeTakeFirst();
    return row === undefined ? undefined : { charged: row.cost, shortfall: row.shortfall };
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

  /** docs/architecture.md: holds that outlive a crash expire and are released. */
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

  /**
   * The newest entries first: the operator's entries (and usage entries written before migration
   * 0011) and the usage records that charged something, which are the usage entries since
   * (docs/decisions/0093). Each side is read in order up to `limit`, then the two are merged.
   */
  async listEntries(accountId: string, limit: number): Promise<LedgerEntry[]> {
    const [entries, charges] = await Promise.all([
      this.#database
        .selectFrom('ledger_entries')
        .select(['id', 'account_id', 'amount', 'kind', 'reason', 'request_id', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('sequence', 'desc')
        .limit(limit)
        .execute(),
      this.#database
        .selectFrom('usage_records')
        .select([
          'settlement_id',
          'account_id',
          'cost',
          'charge_reason',
          'request_id',
          'created_at',
        ])
        .where('account_id', '=', accountId)
        .where('charge_reason', 'is not', null)
        .orderBy('created_at', 'desc')
        .orderBy('sequence', 'desc')
        .limit(limit)
        .execute(),
    ]);
    const listed: LedgerEntry[] = [
      // Charges first: the sort is stable, so at the same millisecond a charge is listed before
      // an operator's entry, as the newer (a call is charged after the credits that paid for it
      // were granted), and each side keeps its own order.
      ...charges.map((row) => ({
        id: row.settlement_id as string,
        accountId: row.account_id,
        amount: 0 - row.cost,
        kind: 'usage' as const,
        reason: row.charge_reason as string,
        requestId: row.request_id,
        createdAt: row.created_at,
      })),
      ...entries.map((row) => ({
        id: row.id,
        accountId: row.account_id,
        amount: row.amount,
        kind: row.kind,
        reason: row.reason,
        requestId: row.request_id,
        createdAt: row.created_at,
      })),
    ];
    return listed.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
  }
}
