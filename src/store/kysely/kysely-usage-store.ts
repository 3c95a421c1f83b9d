import { sql } from 'kysely';
import type { Insertable, Kysely, RawBuilder, Selectable, SelectQueryBuilder } from 'kysely';

import type {
  UsageFilter,
  UsageGroup,
  UsageGroupKey,
  UsageRecord,
  UsageRequestPage,
  UsageRequestQuery,
  UsageStore,
} from '../../generation/usage-store.ts';
import type { Database, UsageRecordsTable } from './kysely-database.ts';

const hourMs = 3_600_000;
const dayMs = 86_400_000;

/**
 * The expression each group key groups by. Days and hours are UTC and computed on the integer
 * epoch milliseconds, which both dialects do alike.
 */
function groupExpression(key: UsageGroupKey): RawBuilder<unknown> {
  switch (key) {
    case 'token':
      return sql.ref('api_key_id');
    case 'model':
      return sql.ref('model');
    case 'deployment':
      return sql.ref('deployment');
    case 'day':
      return sql`created_at - created_at % ${sql.lit(dayMs)}`;
    case 'hour':
      return sql`created_at - created_at % ${sql.lit(hourMs)}`;
    default: {
      const unhandled: never = key;
      throw new Error(`Unknown usage group ${String(unhandled)}`);
    }
  }
}

const groupAlias: Record<UsageGroupKey, 'api_key_id' | 'model' | 'deployment' | 'period'> = {
  token: 'api_key_id',
  model: 'model',
  deployment: 'deployment',
  day: 'period',
  hour: 'period',
};

/** A sum as int8 on PostgreSQL (whose sum of int8 is numeric) and 0 over no rows. */
function total(column: keyof UsageRecordsTable): RawBuilder<number> {
  return sql<number>`cast(coalesce(sum(${sql.ref(column)}), 0) as bigint)`;
}

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

  async summarizeUsage(
    filter: UsageFilter,
    groupBy: readonly UsageGroupKey[],
  ): Promise<UsageGroup[]> {
    if (groupBy.includes('day') && groupBy.includes('hour')) {
      throw new RangeError('A usage report groups by day or by hour, not both');
    }
    const keys = [...new Set(groupBy)];
    let query = filtered(this.#database, filter).select([
      sql<number>`count(*)`.as('requests'),
      total('input_tokens').as('input_tokens'),
      total('input_cache_read_tokens').as('cached_input_tokens'),
      sql<number>`cast(coalesce(sum(input_cache_write_5m_tokens + input_cache_write_1h_tokens), 0) as bigint)`.as(
        'cache_write_tokens',
      ),
      total('output_tokens').as('output_tokens'),
      total('reasoning_tokens').as('reasoning_tokens'),
      total('cost').as('cost'),
    ]);
    for (const key of keys) {
      const expression = groupExpression(key);
      query = query.select(expression.as(groupAlias[key])).groupBy(expression).orderBy(expression);
    }
    const rows = (await query.execute()) as Array<Record<string, unknown>>;
    return rows.map((row) => {
      const group: UsageGroup = {
        requests: Number(row.requests),
        inputTokens: Number(row.input_tokens),
        cachedInputTokens: Number(row.cached_input_tokens),
        cacheWriteTokens: Number(row.cache_write_tokens),
        outputTokens: Number(row.output_tokens),
        reasoningTokens: Number(row.reasoning_tokens),
        cost: Number(row.cost),
      };
      if (keys.includes('token')) group.apiKeyId = row.api_key_id as string;
      if (keys.includes('model')) group.model = row.model as string;
      if (keys.includes('deployment')) group.deployment = row.deployment as string | null;
      if (keys.includes('day') || keys.includes('hour')) group.period = Number(row.period);
      return group;
    });
  }

  async listRequests(query: UsageRequestQuery): Promise<UsageRequestPage> {
    let select = filtered(this.#database, query).selectAll();
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    const { after } = query;
    if (after !== undefined) {
      select = select.where((expression) =>
        expression.or([
          expression('created_at', '<', after.createdAt),
          expression.and([
            expression('created_at', '=', after.createdAt),
            expression('sequence', '<', after.sequence),
          ]),
        ]),
      );
    }
    // One more than asked tells whether another page follows.
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('sequence', 'desc')
      .limit(query.limit + 1)
      .execute();
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      records: page.map(decodeUsageRecord),
      ...(rows.length > query.limit && last !== undefined
        ? { next: { createdAt: last.created_at, sequence: Number(last.sequence) } }
        : {}),
    };
  }

  async spentByToken(apiKeyId: string, since: number, until?: number): Promise<number> {
    let query = this.#database
      .selectFrom('usage_records')
      .select(total('cost').as('spent'))
      .where('api_key_id', '=', apiKeyId)
      .where('created_at', '>=', since);
    if (until !== undefined) query = query.where('created_at', '<', until);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.spent);
  }
}

function filtered(
  database: Kysely<Database>,
  filter: UsageFilter,
): SelectQueryBuilder<Database, 'usage_records', object> {
  let query = database
    .selectFrom('usage_records')
    .where('created_at', '>=', filter.from)
    .where('created_at', '<', filter.to);
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
  if (filter.apiKeyId !== undefined) query = query.where('api_key_id', '=', filter.apiKeyId);
  if (filter.model !== undefined) query = query.where('model', '=', filter.model);
  return query;
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
    first_token_ms: record.firstTokenMs,
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
    firstTokenMs: row.first_token_ms,
    outcome: row.outcome,
    status: row.status,
    createdAt: row.created_at,
  };
}
