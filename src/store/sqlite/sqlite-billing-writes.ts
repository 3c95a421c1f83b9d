import type BetterSqlite3 from 'better-sqlite3';

import type { LedgerEntry } from '../../billing/credit-ledger.ts';
import type { UsageRecord } from '../../generation/usage-store.ts';

/** A usage charge: the ledger entry of a settlement (its amount is the negative charge). */
export type UsageCharge = Omit<LedgerEntry, 'kind'>;

/**
 * One settled call (CreditLedger.settle): its charge, when anything was charged, and its usage
 * record, committed in the same transaction (issue 12 §3).
 */
export interface SettlementWrite {
  id: string;
  accountId: string;
  charge: UsageCharge | undefined;
  record: UsageRecord;
}

type QueuedWrite =
  | { kind: 'settlement'; settlement: SettlementWrite; done: Settle }
  | { kind: 'record'; record: UsageRecord; done: Settle }
  | { kind: 'other'; write: () => void; done: Settle };

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
  readonly #selectLanded: BetterSqlite3.Statement<[string], LandedRow>;
  readonly #writeAll: (writes: QueuedWrite[]) => void;
  readonly #writeOne: (write: QueuedWrite) => void;
  #queue: QueuedWrite[] = [];
  readonly #pendingCharges = new Map<string, number>();
  readonly #queuedSettlements = new Map<string, SettlementWrite>();
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
         input_cache_write_1h_tokens, output_tokens, reasoning_tokens, cost, shortfall,
         settlement_id, latency_ms, outcome, status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#selectLanded = connection.prepare<[string], LandedRow>(
      'select cost, shortfall from usage_records where settlement_id = ?',
    );
    this.#writeAll = connection.transaction((writes: QueuedWrite[]) => {
      // One balance update per account and batch, however many charges it holds.
      const charged = new Map<string, number>();
      for (const write of writes) {
        if (write.kind === 'record') this.#runRecord(write.record, null);
        else if (write.kind === 'other') write.write();
        else {
          this.#runSettlement(write.settlement);
          const { accountId, charge } = write.settlement;
          charged.set(accountId, (charged.get(accountId) ?? 0) - (charge?.amount ?? 0));
        }
      }
      for (const [accountId, cost] of charged) {
        if (cost !== 0) this.#chargeBalance.run(cost, accountId);
      }
    });
    this.#writeOne = connection.transaction((write: QueuedWrite) => {
      if (write.kind === 'record') this.#runRecord(write.record, null);
      else if (write.kind === 'other') write.write();
      else {
        this.#runSettlement(write.settlement);
        const { accountId, charge } = write.settlement;
        if (charge !== undefined) this.#chargeBalance.run(-charge.amount, accountId);
      }
    });
  }

  /** Queues a settlement: its ledger entry, the balance change and its record, all together. */
  settle(settlement: SettlementWrite): Promise<void> {
    const amount = settlement.charge?.amount ?? 0;
    if (!Number.isSafeInteger(amount) || amount > 0) {
      throw new RangeError(`A usage charge must be a non-positive integer, got ${amount}`);
    }
    const pending = this.#pendingCharges.get(settlement.accountId) ?? 0;
    this.#pendingCharges.set(settlement.accountId, pending - amount);
    this.#queuedSettlements.set(settlement.id, settlement);
    return this.#enqueue((done) => ({ kind: 'settlement', settlement, done }));
  }

  /** What a settlement charged if it is queued or committed already; undefined otherwise. */
  landed(settlementId: string): { charged: number; shortfall: number } | undefined {
    const queued = this.#queuedSettlements.get(settlementId);
    const row = queued === undefined ? this.#selectLanded.get(settlementId) : undefined;
    if (queued !== undefined)
      return { charged: queued.record.cost, shortfall: queued.record.shortfall };
    return row === undefined ? undefined : { charged: row.cost, shortfall: row.shortfall };
  }

  record(record: UsageRecord): Promise<void> {
    return this.#enqueue((done) => ({ kind: 'record', record, done }));
  }

  /**
   * Queues another write of the request path (a stored response) into the same group commit.
   * `write` runs synchronously inside the batch's transaction; if it throws, it is retried on its
   * own and only its caller sees the failure, like any other write.
   */
  join(write: () => void): Promise<void> {
    return this.#enqueue((done) => ({ kind: 'other', write, done }));
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
    if (write.kind === 'settlement') {
      const { accountId, charge, id } = write.settlement;
      this.#queuedSettlements.delete(id);
      const left = (this.#pendingCharges.get(accountId) ?? 0) + (charge?.amount ?? 0);
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

  #runSettlement(settlement: SettlementWrite): void {
    if (settlement.charge !== undefined) this.#runEntry(settlement.charge);
    this.#runRecord(settlement.record, settlement.id);
  }

  #runRecord(record: UsageRecord, settlementId: string | null): void {
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
      record.shortfall,
      settlementId,
      record.latencyMs,
      record.outcome,
      record.status,
      record.createdAt,
    );
  }
}

interface LandedRow {
  cost: number;
  shortfall: number;
}

function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && transientCodes.test(code);
}
