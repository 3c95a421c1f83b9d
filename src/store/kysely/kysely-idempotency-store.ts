import type { ExpressionBuilder, Kysely } from 'kysely';

import type {
  ClaimOutcome,
  ClaimRequest,
  HeldClaim,
  IdempotencyScope,
  IdempotencyStore,
  StoredAnswer,
} from '../../idempotency/idempotency-store.ts';
import type { Database } from './kysely-database.ts';

/** The table of migration 0006, kept beside its only user. */
export interface IdempotencyEntriesTable {
  account_id: string;
  operation: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  state: 'pending' | 'completed';
  status: number | null;
  /** JSON object of the replayed headers. */
  headers: string | null;
  body: string | null;
  created_at: number;
  expires_at: number;
}

type IdempotencyDatabase = Database & { idempotency_entries: IdempotencyEntriesTable };

/** Claims renewed per statement: a process rarely holds more, and each is three comparisons. */
const renewBatchSize = 200;

/**
 * SQLite and PostgreSQL share this adapter: the claim is an insert that does nothing on a
 * conflict, then a conditional update that only takes over an expired row, so each step is one
 * atomic statement on either engine and two claimants can never both win.
 */
export class KyselyIdempotencyStore implements IdempotencyStore {
  readonly #database: Kysely<IdempotencyDatabase>;

  constructor(database: Kysely<Database>) {
    this.#database = database.withTables<{ idempotency_entries: IdempotencyEntriesTable }>();
  }

  async claim(scope: IdempotencyScope, request: ClaimRequest): Promise<ClaimOutcome> {
    // A row released between the steps below makes the loop start over; three rounds are plenty
    // because a release needs a claim that was held in the meantime.
    for (let round = 0; round < 3; round += 1) {
      const inserted = await this.#database
        .insertInto('idempotency_entries')
        .values({
          account_id: scope.accountId,
          operation: scope.operation,
          key: scope.key,
          fingerprint: request.fingerprint,
          claim_id: request.claimId,
          state: 'pending',
          status: null,
          headers: null,
          body: null,
          created_at: request.now,
          expires_at: request.claimExpiresAt,
        })
        .onConflict((conflict) => conflict.columns(['account_id', 'operation', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };

      const takenOver = await this.#database
        .updateTable('idempotency_entries')
        .set({
          fingerprint: request.fingerprint,
          claim_id: request.claimId,
          state: 'pending',
          status: null,
          headers: null,
          body: null,
          created_at: request.now,
          expires_at: request.claimExpiresAt,
        })
        .where(inScope(scope))
        .where('expires_at', '<=', request.now)
        .executeTakeFirst();
      if (Number(takenOver.numUpdatedRows) === 1) return { kind: 'claimed' };

      const row = await this.#database
        .selectFrom('idempotency_entries')
        .selectAll()
        .where(inScope(scope))
        .executeTakeFirst();
      if (row === undefined || row.expires_at <= request.now) continue;
      if (row.state === 'pending') {
        return {
          kind: 'in_progress',
          fingerprint: row.fingerprint,
          claimExpiresAt: row.expires_at,
        };
      }
      return { kind: 'completed', fingerprint: row.fingerprint, answer: decodeAnswer(row) };
    }
    throw new Error(`idempotency key ${scope.operation}/${scope.key} kept changing hands`);
  }

  async complete(
    scope: IdempotencyScope,
    claimId: string,
    answer: StoredAnswer,
    expiresAt: number,
  ): Promise<boolean> {
    const result = await this.#database
      .updateTable('idempotency_entries')
      .set({
        state: 'completed',
        status: answer.status,
        headers: JSON.stringify(answer.headers),
        body: answer.body,
        expires_at: expiresAt,
      })
      .where(inScope(scope))
      .where('claim_id', '=', claimId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** By primary key and claim id, in batches that keep each statement small. */
  async renew(claims: HeldClaim[], now: number, expiresAt: number): Promise<void> {
    for (let start = 0; start < claims.length; start += renewBatchSize) {
      const batch = claims.slice(start, start + renewBatchSize);
      await this.#database
        .updateTable('idempotency_entries')
        .set({ expires_at: expiresAt })
        .where((where) =>
          where.or(
            batch.map(({ scope, claimId }) =>
              where.and([inScope(scope)(where), where('claim_id', '=', claimId)]),
            ),
          ),
        )
        .where('state', '=', 'pending')
        // A lapsed claim may already be someone else's key: never revived.
        .where('expires_at', '>', now)
        .execute();
    }
  }

  async release(scope: IdempotencyScope, claimId: string): Promise<void> {
    await this.#database
      .deleteFrom('idempotency_entries')
      .where(inScope(scope))
      .where('claim_id', '=', claimId)
      .where('state', '=', 'pending')
      .execute();
  }

  /** Bounded batches keep each delete's lock short; the sweep repeats while batches are full. */
  async deleteExpired(now: number, limit: number): Promise<number> {
    const expired = await this.#database
      .selectFrom('idempotency_entries')
      .select(['account_id', 'operation', 'key'])
      .where('expires_at', '<=', now)
      .limit(limit)
      .execute();
    if (expired.length === 0) return 0;
    const result = await this.#database
      .deleteFrom('idempotency_entries')
      .where((where) =>
        where.or(
          expired.map((row) =>
            where.and([
              where('account_id', '=', row.account_id),
              where('operation', '=', row.operation),
              where('key', '=', row.key),
            ]),
          ),
        ),
      )
      // A row claimed again since the select is no longer expired and stays.
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The row of one scope (the primary key). */
function inScope(scope: IdempotencyScope) {
  return (where: ExpressionBuilder<IdempotencyDatabase, 'idempotency_entries'>) =>
    where.and({ account_id: scope.accountId, operation: scope.operation, key: scope.key });
}

function decodeAnswer(row: IdempotencyEntriesTable): StoredAnswer {
  if (row.status === null || row.body === null || row.headers === null) {
    throw new Error(`idempotency entry ${row.operation}/${row.key} is completed without an answer`);
  }
  let headers: unknown;
  try {
    headers = JSON.parse(row.headers);
  } catch {
    throw new Error(`idempotency entry ${row.operation}/${row.key} has corrupt headers`);
  }
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new Error(`idempotency entry ${row.operation}/${row.key} has corrupt headers`);
  }
  return { status: row.status, headers: headers as Record<string, string>, body: row.body };
}
