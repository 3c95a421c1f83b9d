import type { Insertable, Kysely, Selectable } from 'kysely';

import type { UsageRecord, UsageStore } from '../../generation/usage-store.ts';
import type { Database, UsageRecordsTable } from './kysely-database.ts';

export class KyselyUsageStore implements UsageStore {
  readonly #database: Kysely<Database>;

  constructor(database: Kysely<Database>) {
    this.#database = database;
  }

  async recordUsage(record: UsageRecord): Promise<void> {
    await this.#database.insertInto('usage_records').values(encodeUsageRecord(record)).execute();
  }

  async listUsage(accountId: string, limit: number): Promise<UsageRecord[]> {
    const rows = await this.#database
      .selectFrom('usage_records')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('sequence', 'desc')
      .limit(limit)
      .execute();
    return rows.map(decodeUsageRecord);
  }
}

/**
 * The row of a usage record; `settlementId` when a settlement writes it (ledger settle), and
 * `chargeReason` when that settlement charged the account (the record is then its ledger entry).
 */
export function encodeUsageRecord(
  record: UsageRecord,
  settlementId: string | null = null,
  chargeReason: string | null = null,
): Insertable<UsageRecordsTable> {
  return {
    request_id: record.requestId,
    account_id: record.accountId,
    api_key_id: record.apiKeyId,
    surface: record.surface,
    model: record.model,
    deployment: record.deployment,
    input_tokens: record.inputTokens,
    input_cache_read_tokens: record.inputCacheReadTokens,
    input_cache_write_5m_tokens: record.inputCacheWrite5mTokens,
    input_cache_write_1h_tokens: record.inputCacheWrite1hTokens,
    output_tokens: record.outputTokens,
    reasoning_tokens: record.reasoningTokens,
    cost: record.cost,
    shortfall: record.shortfall,
    settlement_id: settlementId,
    charge_reason: chargeReason,
    latency_ms: record.latencyMs,
    outcome: record.outcome,
    status: record.status,
    created_at: record.createdAt,
  };
}

function decodeUsageRecord(row: Selectable<UsageRecordsTable>): UsageRecord {
  return {
    requestId: row.request_id,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    surface: row.surface,
    model: row.model,
    deployment: row.deployment,
    inputTokens: row.input_tokens,
    inputCacheReadTokens: row.input_cache_read_tokens,
    inputCacheWrite5mTokens: row.input_cache_write_5m_tokens,
    inputCacheWrite1hTokens: row.input_cache_write_1h_tokens,
    outputTokens: row.output_tokens,
    reasoningTokens: row.reasoning_tokens,
    cost: row.cost,
    shortfall: row.shortfall,
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    status: row.status,
    createdAt: row.created_at,
  };
}
