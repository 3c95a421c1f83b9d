import type BetterSqlite3 from 'better-sqlite3';

import { capSettlementCharge } from '../../billing/cap-settlement-charge.ts';
import type { Settlement, SettlementResult } from '../../billing/credit-ledger.ts';
import type { UsageRecord } from '../../generation/usage-store.ts';
import { UsageRollupSums, usageRollupUpsert } from '../kysely/usage-rollup-sums.ts';

/**
 * One settled call (CreditLedger.settle): the balance change and its usage record, which is also
 * its usage entry in the ledger (docs/decisions/0093), committed in the same transaction
 * (docs/decisions/0017). What it charges is decided when it
 * commits: the cost, capped at what the account covers then. That is what it covered when it
 * settled (`coverable`, counted from the file's available balance `basis`), less what another
 * process took from the account since or plus what it granted (docs/decisions/0091).
 */
export interface SettlementWrite extends Omit<Settlement, 'holdId'> {
  coverable: number;
  basis: number;
}

type QueuedWrite =
  | {
      kind: 'settlement';
      settlement: SettlementWrite;
      /** What it charges unless the balance in the file fell since `basis` was read. */
      expected: number;
      /** What this process had committed in charges to the account when `basis` was known. */
      committedAtBasis: number;
      result: SettlementResult;
      done: Settle<SettlementResult>;
    }
  | { kind: 'record'; record: UsageRecord; done: Settle<void> }
  | { kind: 'other'; write: () => unknown; result?: unknown; done: Settle<unknown> };

interface Settle<Value> {
  resolve(value: Value): void;
  reject(error: unknown): void;
}

interface BalanceRow {
  balance: bigint;
  held: bigint;
}

/** What one commit left of each account's available balance, and what it charged each. */
interface Committed {
  available: Map<string, number>;
  charged: Map<string, number>;
}

/** An account's available balance in the file (balance − held), and when it was read. */
interface KnownBalance {
  available: number;
  readAt: number;
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
 * The records' hourly sums (`usage_rollups`) are added up per commit and written once per hour
 * and keys in the same transaction, instead of once per record (docs/decisions/0180).
 *
 * Until then the charges are counted by `pendingCharge`, so a hold placed in between sees the
 * balance they will leave. A transient failure (busy, disk full, I/O) keeps everything queued and
 * retries; a write that fails for any other reason is retried on its own, so one bad write fails
 * only its own caller and never takes the rest of its batch with it.
 *
 * It also keeps each account's available balance as the last commit left it (`available`), so
 * holds and settlements do not read the balance row on every request (docs/decisions/0091):
 * every commit reads the row inside its own transaction before it charges, and moves what each
 * charge covers by what another process took or granted since, so a balance never goes below
 * zero and a grant made meanwhile counts.
 */
export class SqliteBillingWrites {
  readonly #chargeBalance: BetterSqlite3.Statement;
  readonly #insertRecord: BetterSqlite3.Statement;
  readonly #addToRollup: BetterSqlite3.Statement;
  readonly #selectLanded: BetterSqlite3.Statement<[string], LandedRow>;
  readonly #readBalance: BetterSqlite3.Statement<[string], BalanceRow>;
  readonly #writeAll: (writes: QueuedWrite[]) => Committed;
  readonly #known = new Map<string, KnownBalance>();
  /** Every charge this process has committed, per account, since it started. */
  readonly #committed = new Map<string, number>();
  readonly #knownForMs: number;
  #queue: QueuedWrite[] = [];
  readonly #pendingCharges = new Map<string, number>();
  readonly #queuedSettlements = new Map<string, QueuedWrite & { kind: 'settlement' }>();
  #immediate: NodeJS.Immediate | undefined;
  #retry: NodeJS.Timeout | undefined;

  /**
   * `knownForMs`: how long an account's available balance read or committed here is used
   * without reading the row again, when no commit refreshed it since.
   */
  constructor(connection: BetterSqlite3.Database, options: { knownForMs?: number } = {}) {
    this.#knownForMs = options.knownForMs ?? 20;
    this.#chargeBalance = connection.prepare(
      'update balances set balance = balance - ? where account_id = ?',
    );
    this.#insertRecord = connection.prepare(
      `insert into usage_records (request_id, account_id, api_key_id, surface, model, deployment,
         input_tokens, input_cache_read_tokens, input_cache_write_5m_tokens,
         input_cache_write_1h_tokens, output_tokens, reasoning_tokens, cost, shortfall,
         settlement_id, charge_reason, latency_ms, first_token_ms, outcome, status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#addToRollup = connection.prepare(usageRollupUpsert);
    this.#selectLanded = connection.prepare<[string], LandedRow>(
      'select cost, shortfall from usage_records where settlement_id = ?',
    );
    this.#readBalance = connection
      .prepare<[string], BalanceRow>('select balance, held from balances where account_id = ?')
      .safeIntegers(true);
    this.#writeAll = connection.transaction((writes: QueuedWrite[]) => {
      const available = new Map<string, number>();
      const rollups = new UsageRollupSums();
      for (const write of writes) this.#run(write, available, rollups);
      this.#writeRollups(rollups);
      return this.#chargeBalances(available, writes);
    });
  }

  /**
   * The account's balance minus what the file holds for it, as the last commit left it or as
   * read less than `knownForMs` ago; read from the file when `fresh`, or when nothing recent is
   * known. Undefined when the account has no balance row.
   */
  available(accountId: string, fresh = false): number | undefined {
    const known = this.#known.get(accountId);
    const now = performance.now();
    if (!fresh && known !== undefined && now - known.readAt < this.#knownForMs) {
      return known.available;
    }
    const available = this.#readAvailable(accountId);
    if (available === undefined) this.#known.delete(accountId);
    else this.#known.set(accountId, { available, readAt: now });
    return available;
  }

  /** Forgets what is known of an account's balance (all when none is named): it changed here. */
  forget(accountId?: string): void {
    if (accountId === undefined) this.#known.clear();
    else this.#known.delete(accountId);
  }

  /** Queues a settlement: the balance change and its record (its ledger entry), together. */
  settle(settlement: SettlementWrite): Promise<SettlementResult> {
    const expected = capSettlementCharge(settlement.cost, settlement.coverable);
    if (!Number.isSafeInteger(expected.charged) || expected.charged < 0) {
      throw new RangeError(
        `A usage charge must be a non-negative integer, got ${expected.charged}`,
      );
    }
    const pending = this.#pendingCharges.get(settlement.accountId) ?? 0;
    this.#pendingCharges.set(settlement.accountId, pending + expected.charged);
    return new Promise<SettlementResult>((resolve, reject) => {
      const write = {
        kind: 'settlement' as const,
        settlement,
        expected: expected.charged,
        committedAtBasis: this.#committed.get(settlement.accountId) ?? 0,
        result: expected,
        done: { resolve, reject },
      };
      this.#queuedSettlements.set(settlement.id, write);
      this.#push(write);
    });
  }

  /** What a settlement charged if it is queued or committed already; undefined otherwise. */
  landed(settlementId: string): SettlementResult | undefined {
    const queued = this.#queuedSettlements.get(settlementId);
    if (queued !== undefined) return queued.result;
    const row = this.#selectLanded.get(settlementId);
    return row === undefined ? undefined : { charged: row.cost, shortfall: row.shortfall };
  }

  record(record: UsageRecord): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.#push({ kind: 'record', record, done: { resolve, reject } }),
    );
  }

  /**
   * Queues other work of the request path into the same group commit: a write (a stored
   * response) or a read that would otherwise open a read transaction of its own (an idempotency
   * key's row). `work` runs synchronously inside the batch's transaction, after the work queued
   * before it, and the promise resolves with what it returned once the batch committed; if it
   * throws, it is retried on its own and only its caller sees the failure, like any write.
   */
  join<Value>(work: () => Value): Promise<Value> {
    return new Promise<Value>((resolve, reject) =>
      this.#push({
        kind: 'other',
        write: work,
        done: { resolve: resolve as (value: unknown) => void, reject },
      }),
    );
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
      this.#remember(this.#writeAll(writes));
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
      this.#remember(this.#writeAll([write]));
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
      const { accountId, id } = write.settlement;
      this.#queuedSettlements.delete(id);
      const left = (this.#pendingCharges.get(accountId) ?? 0) - write.expected;
      if (left === 0) this.#pendingCharges.delete(accountId);
      else this.#pendingCharges.set(accountId, left);
      if (error === undefined) write.done.resolve(write.result);
      else write.done.reject(error);
      return;
    }
    if (error !== undefined) write.done.reject(error);
    else if (write.kind === 'other') write.done.resolve(write.result);
    else write.done.resolve();
  }

  #push(write: QueuedWrite): void {
    this.#queue.push(write);
    if (this.#retry === undefined) this.#immediate ??= setImmediate(() => this.flush());
  }

  /** After a commit: what it left of each account's balance, and what it charged. */
  #remember(committed: Committed): void {
    const readAt = performance.now();
    for (const [accountId, left] of committed.available) {
      this.#known.set(accountId, { available: left, readAt });
    }
    for (const [accountId, amount] of committed.charged) {
      this.#committed.set(accountId, (this.#committed.get(accountId) ?? 0) + amount);
    }
  }

  #readAvailable(accountId: string): number | undefined {
    const row = this.#readBalance.get(accountId);
    return row === undefined ? undefined : exactNumber(row.balance - row.held, accountId);
  }

  /**
   * Runs one queued write inside the commit's transaction. A settlement's charge is decided
   * here: the balance row is read once per account and commit. Where it differs from the
   * settlement's `basis` minus what this process committed since, another process took or granted
   * credits, and what the settlement covers moves by as much.
   */
  #run(write: QueuedWrite, available: Map<string, number>, rollups: UsageRollupSums): void {
    if (write.kind === 'record') {
      const { record } = write;
      return this.#runRecord(rollups, record, null, null, record.cost, record.shortfall);
    }
    if (write.kind === 'other') {
      write.result = write.write();
      return;
    }
    const { settlement } = write;
    const { accountId } = settlement;
    if (!available.has(accountId)) available.set(accountId, this.#readAvailable(accountId) ?? 0);
    const now = available.get(accountId) as number;
    const committedSince = (this.#committed.get(accountId) ?? 0) - write.committedAtBasis;
    const taken = settlement.basis - committedSince - now;
    const result = capSettlementCharge(settlement.cost, settlement.coverable - taken);
    write.result = result;
    this.#runRecord(
      rollups,
      settlement.record,
      settlement.id,
      result.charged > 0 ? settlement.reason : null,
      result.charged,
      result.shortfall,
    );
  }

  /** One balance update per account and commit, however many charges it holds. */
  #chargeBalances(available: Map<string, number>, writes: QueuedWrite[]): Committed {
    const charged = new Map<string, number>();
    for (const write of writes) {
      if (write.kind !== 'settlement') continue;
      const { accountId } = write.settlement;
      charged.set(accountId, (charged.get(accountId) ?? 0) + write.result.charged);
    }
    for (const [accountId, amount] of charged) {
      if (amount !== 0) this.#chargeBalance.run(amount, accountId);
      available.set(accountId, (available.get(accountId) as number) - amount);
    }
    return { available, charged };
  }

  /** One upsert per hour and keys of the records this commit wrote, however many they are. */
  #writeRollups(rollups: UsageRollupSums): void {
    for (const row of rollups.rows()) this.#addToRollup.run(row);
  }

  #runRecord(
    rollups: UsageRollupSums,
    record: Omit<UsageRecord, 'cost' | 'shortfall'>,
    settlementId: string | null,
    chargeReason: string | null,
    cost: number,
    shortfall: number,
  ): void {
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
      cost,
      shortfall,
      settlementId,
      chargeReason,
      record.latencyMs,
      // A settlement kept by the outbox since before the field existed carries none.
      record.firstTokenMs ?? null,
      record.outcome,
      record.status,
      record.createdAt,
    );
    rollups.add(record, cost);
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

const largest = BigInt(Number.MAX_SAFE_INTEGER);

function exactNumber(value: bigint, accountId: string): number {
  if (value > largest || value < -largest) {
    throw new RangeError(`The balance of ${accountId} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return Number(value);
}
