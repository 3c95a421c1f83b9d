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
import type {
  Database,
  StoreDialect,
  UsageRecordsTable,
  UsageRollupsTable,
} from './kysely-database.ts';
import { UsageRollupSums } from './usage-rollup-sums.ts';

const hourMs = 3_600_000;
const dayMs = 86_400_000;

/**
 * The expression each group key groups by. Days and hours are UTC and computed on the integer
 * epoch milliseconds, which both dialects do alike.
 */
function groupExpression(key: UsageGroupKey, time: 'created_at' | 'hour'): RawBuilder<unknown> {
  switch (key) {
    case 'token':
      return sql.ref('api_key_id');
    case 'model':
      return sql.ref('model');
    case 'deployment':
      return sql.ref('deployment');
    case 'day':
      return sql`${sql.ref(time)} - ${sql.ref(time)} % ${sql.lit(dayMs)}`;
    case 'hour':
      return time === 'hour' ? sql.ref('hour') : sql`created_at - created_at % ${sql.lit(hourMs)}`;
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

const totalFields = [
  'requests',
  'inputTokens',
  'cachedInputTokens',
  'cacheWriteTokens',
  'outputTokens',
  'reasoningTokens',
  'cost',
] as const;

function emptyTotals(): UsageGroup {
  return {
    requests: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cost: 0,
  };
}

/**
 * `[from, to)` as the whole UTC hours inside it and the parts of an hour left at either end
 * (none when it starts or ends on the hour).
 */
function splitIntoHours(
  from: number,
  to: number,
): { whole?: { from: number; to: number }; edges: Array<[number, number]> } {
  const firstHour = Math.ceil(from / hourMs) * hourMs;
  const lastHour = Math.floor(to / hourMs) * hourMs;
  if (firstHour >= lastHour) return { edges: [[from, to]] };
  const edges: Array<[number, number]> = [];
  if (from < firstHour) edges.push([from, firstHour]);
  if (lastHour < to) edges.push([lastHour, to]);
  return { whole: { from: firstHour, to: lastHour }, edges };
}

function decodeGroups(rows: Array<Record<string, unknown>>, keys: UsageGroupKey[]): UsageGroup[] {
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

/** Code-unit order of strings, whatever the database's collation; a missing deployment last. */
function compareGroups(left: UsageGroup, right: UsageGroup, keys: UsageGroupKey[]): number {
  for (const key of keys) {
    const field = groupField[key];
    const [a, b] = [left[field], right[field]];
    if (a === b) continue;
    if (a === null || a === undefined) return 1;
    if (b === null || b === undefined) return -1;
    return a < b ? -1 : 1;
  }
  return 0;
}

const groupField = {
  token: 'apiKeyId',
  model: 'model',
  deployment: 'deployment',
  day: 'period',
  hour: 'period',
} as const satisfies Record<UsageGroupKey, keyof UsageGroup>;

/** A sum as int8 on PostgreSQL (whose sum of int8 is numeric) and 0 over no rows. */
function total(column: keyof UsageRecordsTable | keyof UsageRollupsTable): RawBuilder<number> {
  return sql<number>`cast(coalesce(sum(${sql.ref(column)}), 0) as bigint)`;
}

export class KyselyUsageStore implements UsageStore {
  readonly #database: Kysely<Database>;
  readonly #dialect: StoreDialect;

  constructor(database: Kysely<Database>, dialect: StoreDialect) {
    this.#database = database;
    this.#dialect = dialect;
  }

  async recordUsage(record: UsageRecord): Promise<void> {
    if (this.#dialect === 'postgres') {
      // The rollup trigger adds the record to its hour (migration 0014).
      await this.#database.insertInto('usage_records').values(encodeUsageRecord(record)).execute();
      return;
    }
    await this.#database.transaction().execute(async (transaction) => {
      await transaction.insertInto('usage_records').values(encodeUsageRecord(record)).execute();
      await UsageRollupSums.writeOne(transaction, record, record.cost);
    });
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

  /**
   * Whole hours inside the period are read from the hourly rollups (migration 0014), the parts
   * of an hour at either end from the records themselves; the two are added up here and the
   * groups ordered by their keys (strings by code unit, a missing deployment last), the same on
   * either dialect.
   */
  async summarizeUsage(
    filter: UsageFilter,
    groupBy: readonly UsageGroupKey[],
  ): Promise<UsageGroup[]> {
    if (groupBy.includes('day') && groupBy.includes('hour')) {
      throw new RangeError('A usage report groups by day or by hour, not both');
    }
    const keys = [...new Set(groupBy)];
    const { whole, edges } = splitIntoHours(filter.from, filter.to);
    const parts = await Promise.all([
      ...edges.map(([from, to]) => this.#sumRecords({ ...filter, from, to }, keys)),
      ...(whole === undefined ? [] : [this.#sumRollups({ ...filter, ...whole }, keys)]),
    ]);
    const merged = new Map<string, UsageGroup>();
    for (const group of parts.flat()) {
      const key = JSON.stringify([group.apiKeyId, group.model, group.deployment, group.period]);
      const known = merged.get(key);
      if (known === undefined) merged.set(key, group);
      else {
        for (const field of totalFields) known[field] += group[field];
      }
    }
    if (keys.length === 0) return [merged.values().next().value ?? emptyTotals()];
    return [...merged.values()].sort((left, right) => compareGroups(left, right, keys));
  }

  async #sumRecords(filter: UsageFilter, keys: UsageGroupKey[]): Promise<UsageGroup[]> {
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
      const expression = groupExpression(key, 'created_at');
      query = query.select(expression.as(groupAlias[key])).groupBy(expression);
    }
    return decodeGroups((await query.execute()) as Array<Record<string, unknown>>, keys);
  }

  async #sumRollups(filter: UsageFilter, keys: UsageGroupKey[]): Promise<UsageGroup[]> {
    let query = this.#database
      .selectFrom('usage_rollups')
      .where('hour', '>=', filter.from)
      .where('hour', '<', filter.to)
      .select([
        total('requests').as('requests'),
        total('input_tokens').as('input_tokens'),
        total('input_cache_read_tokens').as('cached_input_tokens'),
        total('cache_write_tokens').as('cache_write_tokens'),
        total('output_tokens').as('output_tokens'),
        total('reasoning_tokens').as('reasoning_tokens'),
        total('cost').as('cost'),
      ]);
    if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
    if (filter.apiKeyId !== undefined) query = query.where('api_key_id', '=', filter.apiKeyId);
    if (filter.model !== undefined) query = query.where('model', '=', filter.model);
    for (const key of keys) {
      const expression = groupExpression(key, 'hour');
      query = query.select(expression.as(groupAlias[key])).groupBy(expression);
    }
    const rows = (await query.execute()) as Array<Record<string, unknown>>;
    return decodeGroups(
      rows.map((row) => (row.deployment === '' ? { ...row, deployment: null } : row)),
      keys,
    );
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
    const [totals] = await this.summarizeUsage(
      { apiKeyId, from: since, to: until ?? Number.MAX_SAFE_INTEGER },
      [],
    );
    return totals?.cost ?? 0;
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
    // A settlement kept by the outbox since before the field existed carries none.
    first_token_ms: record.firstTokenMs ?? null,
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
