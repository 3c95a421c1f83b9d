import { sql } from 'kysely';
import type { Kysely } from 'kysely';

import type { UsageRecord } from '../../generation/usage-store.ts';
import type { Database } from './kysely-database.ts';

/** The columns of a rollup row, in the order the upsert below takes them. */
const rolledUpColumns = `account_id, hour, api_key_id, model, deployment, requests, input_tokens,
  input_cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost`;

/** Adds a row's sums to the row of the same hour and keys, or inserts it where there is none. */
const addToExisting = `on conflict (account_id, hour, api_key_id, model, deployment) do update set
  requests = usage_rollups.requests + excluded.requests,
  input_tokens = usage_rollups.input_tokens + excluded.input_tokens,
  input_cache_read_tokens = usage_rollups.input_cache_read_tokens + excluded.input_cache_read_tokens,
  cache_write_tokens = usage_rollups.cache_write_tokens + excluded.cache_write_tokens,
  output_tokens = usage_rollups.output_tokens + excluded.output_tokens,
  reasoning_tokens = usage_rollups.reasoning_tokens + excluded.reasoning_tokens,
  cost = usage_rollups.cost + excluded.cost`;

/** The upsert with positional parameters, for a prepared better-sqlite3 statement. */
export const usageRollupUpsert = `insert into usage_rollups (${rolledUpColumns})
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${addToExisting}`;

const hourMilliseconds = 3_600_000;

/** What a usage record adds to its rollup row: the columns of the record as inserted. */
export type RolledUpRecord = Pick<
  UsageRecord,
  | 'accountId'
  | 'apiKeyId'
  | 'model'
  | 'deployment'
  | 'inputTokens'
  | 'inputCacheReadTokens'
  | 'inputCacheWrite5mTokens'
  | 'inputCacheWrite1hTokens'
  | 'outputTokens'
  | 'reasoningTokens'
  | 'createdAt'
>;

type RollupRow = [
  accountId: string,
  hour: number,
  apiKeyId: string,
  model: string,
  deployment: string,
  requests: number,
  inputTokens: number,
  inputCacheReadTokens: number,
  cacheWriteTokens: number,
  outputTokens: number,
  reasoningTokens: number,
  cost: number,
];

/**
 * The hourly sums (`usage_rollups`) of the usage records one SQLite transaction writes, added up
 * in memory and written once per hour and keys when it commits. On SQLite the writer adds them
 * (docs/decisions/0180); on PostgreSQL a trigger does. `cost` is what the record was inserted
 * with (the charge, for a settlement). A missing deployment is '' (a key column cannot be null).
 */
export class UsageRollupSums {
  readonly #rows = new Map<string, RollupRow>();

  /** Adds one record to its rollup row through Kysely: a writer of one record a transaction. */
  static async writeOne(
    database: Kysely<Database>,
    record: RolledUpRecord,
    cost: number,
  ): Promise<void> {
    const sums = new UsageRollupSums();
    sums.add(record, cost);
    await sums.write(database);
  }

  add(record: RolledUpRecord, cost: number): void {
    const hour = record.createdAt - (record.createdAt % hourMilliseconds);
    const deployment = record.deployment ?? '';
    const key = `${record.accountId}\u0000${hour}\u0000${record.apiKeyId}\u0000${record.model}\u0000${deployment}`;
    const cacheWrite = record.inputCacheWrite5mTokens + record.inputCacheWrite1hTokens;
    const row = this.#rows.get(key);
    if (row === undefined) {
      this.#rows.set(key, [
        record.accountId,
        hour,
        record.apiKeyId,
        record.model,
        deployment,
        1,
        record.inputTokens,
        record.inputCacheReadTokens,
        cacheWrite,
        record.outputTokens,
        record.reasoningTokens,
        cost,
      ]);
      return;
    }
    row[5] += 1;
    row[6] += record.inputTokens;
    row[7] += record.inputCacheReadTokens;
    row[8] += cacheWrite;
    row[9] += record.outputTokens;
    row[10] += record.reasoningTokens;
    row[11] += cost;
  }

  /** Each summed row, as the parameters of `usageRollupUpsert`. */
  rows(): IterableIterator<RollupRow> {
    return this.#rows.values();
  }

  /** Writes the sums through Kysely (inside the caller's transaction, when it passes one). */
  async write(database: Kysely<Database>): Promise<void> {
    for (const row of this.rows()) {
      await sql`insert into usage_rollups (${sql.raw(rolledUpColumns)})
        values (${sql.join(row)}) ${sql.raw(addToExisting)}`.execute(database);
    }
  }
}
