import type BetterSqlite3 from 'better-sqlite3';

import type {
  ClaimOutcome,
  ClaimRequest,
  HeldClaim,
  IdempotencyScope,
  IdempotencyStore,
  StoredAnswer,
} from '../../idempotency/idempotency-store.ts';
import type { SqliteBillingWrites } from './sqlite-billing-writes.ts';

interface EntryRow {
  fingerprint: string;
  state: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  expires_at: number;
}

/** A completed answer whose row waits for the group commit. */
interface LandingAnswer {
  fingerprint: string;
  answer: StoredAnswer;
  expiresAt: number;
}

interface PendingClaim {
  fingerprint: string;
  claimedAt: number;
  claimId: string;
  claimExpiresAt: number;
}

/**
 * Idempotency keys of the one gateway process that owns an SQLite file (docs/decisions/0014,
 * 0045). Pending claims live in this process's memory, like holds: only this process can run
 * the request, and a crash takes the claim with it, which is exactly what releasing it would
 * do. Claiming is then a read and no commit; only a final answer is written, once, in the
 * request path's group commit (sqlite-billing-writes.ts) rather than a WAL commit of its own.
 * Until that commit lands the answer is replayed from memory. A key's row is read in the group
 * commit too; what this process holds in memory is checked again once the read is back, and the
 * claim is taken synchronously after that check, so two claims of one key can never both win.
 */
export class SqliteOwnedIdempotency implements IdempotencyStore {
  readonly #durable: IdempotencyStore;
  readonly #writes: SqliteBillingWrites;
  readonly #pending = new Map<string, PendingClaim>();
  readonly #landing = new Map<string, LandingAnswer>();
  readonly #read: BetterSqlite3.Statement<[string, string, string], EntryRow>;
  readonly #write: BetterSqlite3.Statement<
    [string, string, string, string, string, number, string, string, number, number]
  >;

  constructor(
    connection: BetterSqlite3.Database,
    writes: SqliteBillingWrites,
    durable: IdempotencyStore,
  ) {
    this.#durable = durable;
    this.#writes = writes;
    this.#read = connection.prepare(
      'select fingerprint, state, status, headers, body, expires_at from idempotency_entries ' +
        'where account_id = ? and operation = ? and key = ?',
    );
    this.#write = connection.prepare(
      'insert into idempotency_entries (account_id, operation, key, fingerprint, claim_id, ' +
        "state, status, headers, body, created_at, expires_at) values (?, ?, ?, ?, ?, 'completed', " +
        '?, ?, ?, ?, ?) on conflict (account_id, operation, key) do update set ' +
        'fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, state = excluded.state, ' +
        'status = excluded.status, headers = excluded.headers, body = excluded.body, ' +
        'created_at = excluded.created_at, expires_at = excluded.expires_at',
    );
  }

  async claim(scope: IdempotencyScope, request: ClaimRequest): Promise<ClaimOutcome> {
    const id = scopeId(scope);
    const known = this.#claimedHere(id, request.now);
    if (known !== undefined) return known;
    // The row is read inside the next group commit's transaction, with every other claim of
    // this turn: on its own, each read would open and close a read transaction of its own (two
    // lock calls on the WAL index), several times the cost of the read itself.
    const row = await this.#writes.join(() =>
      this.#read.get(scope.accountId, scope.operation, scope.key),
    );
    // A claim of the same key may have been taken or answered here while the read waited.
    const meanwhile = this.#claimedHere(id, request.now);
    if (meanwhile !== undefined) return meanwhile;
    if (row !== undefined && row.expires_at > request.now) {
      // A pending row was written by a store opened without ownership (the durable adapter).
      if (row.state !== 'completed') {
        return {
          kind: 'in_progress',
          fingerprint: row.fingerprint,
          claimExpiresAt: row.expires_at,
        };
      }
      return { kind: 'completed', fingerprint: row.fingerprint, answer: decodeAnswer(row, scope) };
    }
    this.#pending.set(id, {
      fingerprint: request.fingerprint,
      claimedAt: request.now,
      claimId: request.claimId,
      claimExpiresAt: request.claimExpiresAt,
    });
    return { kind: 'claimed' };
  }

  /** What this process knows of a key without the file: claimed, or answered and not landed. */
  #claimedHere(id: string, now: number): ClaimOutcome | undefined {
    const held = this.#pending.get(id);
    if (held !== undefined && held.claimExpiresAt > now) {
      return {
        kind: 'in_progress',
        fingerprint: held.fingerprint,
        claimExpiresAt: held.claimExpiresAt,
      };
    }
    const landing = this.#landing.get(id);
    if (landing !== undefined && landing.expiresAt > now) {
      return { kind: 'completed', fingerprint: landing.fingerprint, answer: landing.answer };
    }
    return undefined;
  }

  async complete(
    scope: IdempotencyScope,
    claimId: string,
    answer: StoredAnswer,
    expiresAt: number,
  ): Promise<boolean> {
    const id = scopeId(scope);
    const held = this.#pending.get(id);
    if (held === undefined || held.claimId !== claimId) return false;
    const headers = JSON.stringify(answer.headers);
    const landing: LandingAnswer = { fingerprint: held.fingerprint, answer, expiresAt };
    this.#pending.delete(id);
    this.#landing.set(id, landing);
    try {
      await this.#writes.join(() =>
        this.#write.run(
          scope.accountId,
          scope.operation,
          scope.key,
          held.fingerprint,
          claimId,
          answer.status,
          headers,
          answer.body,
          held.claimedAt,
          expiresAt,
        ),
      );
    } catch (error) {
      // Not written: the claim is held again, as when a write of its own failed.
      if (!this.#pending.has(id)) this.#pending.set(id, held);
      throw error;
    } finally {
      if (this.#landing.get(id) === landing) this.#landing.delete(id);
    }
    return true;
  }

  /** Claims live here, so renewing one is moving its end in memory. */
  async renew(claims: HeldClaim[], now: number, expiresAt: number): Promise<void> {
    for (const { scope, claimId } of claims) {
      const held = this.#pending.get(scopeId(scope));
      if (held?.claimId === claimId && held.claimExpiresAt > now) held.claimExpiresAt = expiresAt;
    }
  }

  async release(scope: IdempotencyScope, claimId: string): Promise<void> {
    const id = scopeId(scope);
    if (this.#pending.get(id)?.claimId === claimId) this.#pending.delete(id);
  }

  /** Abandoned claims in memory first, then stored answers, `limit` in all. */
  async deleteExpired(now: number, limit: number): Promise<number> {
    let deleted = 0;
    for (const [id, claim] of this.#pending) {
      if (deleted === limit) return deleted;
      if (claim.claimExpiresAt <= now) {
        this.#pending.delete(id);
        deleted += 1;
      }
    }
    return deleted + (await this.#durable.deleteExpired(now, limit - deleted));
  }
}

/** NUL cannot occur in a header value or an operation name, so the parts never run together. */
function scopeId(scope: IdempotencyScope): string {
  return `${scope.accountId}\u0000${scope.operation}\u0000${scope.key}`;
}

function decodeAnswer(row: EntryRow, scope: IdempotencyScope): StoredAnswer {
  const corrupt = () =>
    new Error(`idempotency entry ${scope.operation}/${scope.key} is completed without an answer`);
  if (row.status === null || row.body === null || row.headers === null) throw corrupt();
  let headers: unknown;
  try {
    headers = JSON.parse(row.headers);
  } catch {
    throw corrupt();
  }
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw corrupt();
  return { status: row.status, headers: headers as Record<string, string>, body: row.body };
}
