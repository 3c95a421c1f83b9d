import type BetterSqlite3 from 'better-sqlite3';

import type { LedgerEntry } from '../../billing/credit-ledger.ts';
import type { UsageRecord } from '../../generation/usage-store.ts';

/** A usage charge: the ledger entry of a settled hold (its amount is the negative cost). */
export type UsageCharge = Omit<LedgerEntry, 'kind'>;

type QueuedWrite =
  | { kind: 'charge'; charge: UsageCharge; done: Settle }
  | { kind: 'record'; record: UsageRecord; done: Settle };

interface Settle {
  resolve(): void;
  reject(error: unknown): void;
}

/** SQLite result codes after which the same write may succeed later (sqlite.org/rescode.html). */
const transientCodes = /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/;
const retryAfterMilliseconds = 1_000;

/**
 * Group commit for the request path of the embedded store. Every finished request writes a usage
 * charge and a usage record; committing each on its own costs a WAL commit apiece, which the
 * benchmark showed to be most of the gateway's CPU per request. Writes queued during one turn of
 * the event loop are committed together in one transaction on the next (`setImmediate`), and
 * each caller's promise resolves once its write is committed, so a caller that awaits it knows
 * its write is as durable as before.
 *
 * Until then the charges are counted by `pendingCharge`, so a hold placed in between sees the
 * balance they will leave. A transient failure (busy, disk full, I/O) keeps everything queued and
 * retries; a write that fails for any other reason is retried on its own, so one bad write fails
 * only its own caller and never takes the rest of its batch with it.
 */
export class SqliteBillingWrites {
  readonly #insertEntry: BetterSqlite3.Statement;
  readonly #chargeBalance: BetterSqlite3.Statement;
  readonly #insertRecord: BetterSqlite3.Statement;
  readonly #writeAll: (writes: QueuedWrite[]) => void;
  readonly #writeOne: (write: QueuedWrite) => void;
  #queue: QueuedWrite[] = [];
  readonly #pendingCharges = new Map<string, number>();
  #immediate: NodeJS.Immediate | undefined;
  #retry: NodeJS.Timeout | undefined;

  constructor(connection: BetterSqlite3.Database) {
    this.#insertEntry = connection.prepare(
      `insert into ledger_entries (id, account_id, amount, kind, reason, request_id, created_at)
       values (?, ?, ?, 'usage', ?, ?, ?)`,
    );
    this.#chargeBalance = connection.prepare(
      'update balances set balance = balance - ? where account_id = ?',
    );
    this.#insertRecord = connection.prepare(
      `insert into usage_records (request_id, account_id, api_key_id, surface, model, deployment,
         input_tokens, input_cache_read_tokens, input_cache_write_5m_tokens,
         input_cache_write_1h_tokens, output_tokens, reasoning_tokens, cost, latency_ms, outcome,
         status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#writeAll = connection.transaction((writes: QueuedWrite[]) => {
      // One balance update per account and batch, however many charges it holds.
      const charged = new Map<string, number>();
      for (const write of writes) {
        if (write.kind === 'record') this.#runRecord(write.record);
        else {
          this.#runEntry(write.charge);
          const { accountId, amount } = write.charge;
          charged.set(accountId, (charged.get(accountId) ?? 0) - amount);
        }
      }
      for (const [accountId, cost] of charged) this.#chargeBalance.run(cost, accountId);
    });
    this.#writeOne = connection.transaction((write: QueuedWrite) => {
      if (write.kind === 'record') this.#runRecord(write.record);
      else {
        this.#runEntry(write.charge);
        this.#chargeBalance.run(-write.charge.amount, write.charge.accountId);
      }
    });
  }

  /** Queues a usage charge: its ledger entry and the balance change, committed together. */
  charge(charge: UsageCharge): Promise<void> {
    if (!Number.isSafeInteger(charge.amount) || charge.amount > 0) {
      throw new RangeError(`A usage charge must be a non-positive integer, got ${charge.amount}`);
    }
    const pending = this.#pendingCharges.get(charge.accountId) ?? 0;
    this.#pendingCharges.set(charge.accountId, pending - charge.amount);
    return this.#enqueue((done) => ({ kind: 'charge', charge, done }));
  }

  record(record: UsageRecord): Promise<void> {
    return this.#enqueue((done) => ({ kind: 'record', record, done }));
  }

  /** Micro-credits charged to the account but not yet committed to its balance row. */
  pendingCharge(accountId: string): number {
    return this.#pendingCharges.get(accountId) ?? 0;
  }

  /**
   * Commits everything queued now. Reads call this first, so they see every write that was
   * made before them. A transient failure leaves the queue for the retry and does not throw.
   */
  flush(): void {
    clearImmediate(this.#immediate);
    clearTimeout(this.#retry);
    this.#immediate = this.#retry = undefined;
    if (this.#queue.length === 0) return;
    const writes = this.#queue;
    this.#queue = [];
    try {
      this.#writeAll(writes);
      for (const write of writes) this.#finish(write);
      return;
    } catch (error) {
      if (isTransient(error)) {
        this.#queue = writes.concat(this.#queue);
        this.#retryLater();
        return;
      }
    }
    for (const write of writes) this.#writeAlone(write);
  }

  #writeAlone(write: QueuedWrite): void {
    try {
      this.#writeOne(write);
      this.#finish(write);
    } catch (error) {
      if (isTransient(error)) {
        this.#queue.push(write);
        this.#retryLater();
        return;
      }
      this.#finish(write, error);
    }
  }

  #retryLater(): void {
    this.#retry ??= setTimeout(() => this.flush(), retryAfterMilliseconds).unref();
  }

  #finish(write: QueuedWrite, error?: unknown): void {
    if (write.kind === 'charge') {
      const { accountId, amount } = write.charge;
      const left = (this.#pendingCharges.get(accountId) ?? 0) + amount;
      if (left === 0) this.#pendingCharges.delete(accountId);
      else this.#pendingCharges.set(accountId, left);
    }
    if (error === undefined) write.done.resolve();
    else write.done.reject(error);
  }

  #enqueue(make: (done: Settle) => QueuedWrite): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push(make({ resolve, reject }));
      if (this.#retry === undefined) this.#immediate ??= setImmediate(() => this.flush());
    });
  }

  #runEntry(charge: UsageCharge): void {
    this.#insertEntry.run(
      charge.id,
      charge.accountId,
      charge.amount,
      charge.reason,
      charge.requestId,
      charge.createdAt,
    );
  }

  #runRecord(record: UsageRecord): void {
    this.#insertRecord.run(
      record.requestId,
      record.accountId,
      record.apiKeyId,
      record.surface,
      record.model,
      record.deployment,
      record.inputTokens,
      record.inputCacheReadTokens,
      record.inputCacheWrite5mTokens,
      record.inputCacheWrite1hTokens,
      record.outputTokens,
      record.reasoningTokens,
      record.cost,
      record.latencyMs,
      record.outcome,
      record.status,
      record.createdAt,
    );
  }
}

function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && transientCodes.test(code);
}
