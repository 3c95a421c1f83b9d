import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/** Sums of one account's usage records per UTC hour, token, model and deployment. */
const rolledUp = `account_id, hour, api_key_id, model, deployment, requests, input_tokens,
  input_cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost`;

/** The rollup row of one new record (`new`), added to the one of its hour if there is one. */
export const rollUpNewRecord = `insert into usage_rollups (${rolledUp})
  values (new.account_id, new.created_at - new.created_at % 3600000, new.api_key_id, new.model,
    coalesce(new.deployment, ''), 1, new.input_tokens, new.input_cache_read_tokens,
    new.input_cache_write_5m_tokens + new.input_cache_write_1h_tokens, new.output_tokens,
    new.reasoning_tokens, new.cost)
  on conflict (account_id, hour, api_key_id, model, deployment) do update set
    requests = usage_rollups.requests + 1,
    input_tokens = usage_rollups.input_tokens + excluded.input_tokens,
    input_cache_read_tokens = usage_rollups.input_cache_read_tokens + excluded.input_cache_read_tokens,
    cache_write_tokens = usage_rollups.cache_write_tokens + excluded.cache_write_tokens,
    output_tokens = usage_rollups.output_tokens + excluded.output_tokens,
    reasoning_tokens = usage_rollups.reasoning_tokens + excluded.reasoning_tokens,
    cost = usage_rollups.cost + excluded.cost`;

/**
 * Usage reports over a month of a busy account read hourly sums instead of every record
 * (docs/operations.md, "Usage reports", has the measured times). The sums are kept by a trigger
 * on `usage_records`, so every path that writes a record (the settlement, the embedded store's
 * group commit, a refusal's record) keeps them in the same transaction, and nothing can write a
 * record without them. Records are never updated nor deleted, so inserts are all it follows.
 * `deployment` is '' where the record's is null: a key column cannot be null.
 */
export function createUsageRollupsMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('usage_rollups')
        .addColumn('account_id', 'text', (column) => column.notNull())
        .addColumn('hour', wideInteger, (column) => column.notNull())
        .addColumn('api_key_id', 'text', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('deployment', 'text', (column) => column.notNull())
        .addColumn('requests', wideInteger, (column) => column.notNull())
        .addColumn('input_tokens', wideInteger, (column) => column.notNull())
        .addColumn('input_cache_read_tokens', wideInteger, (column) => column.notNull())
        .addColumn('cache_write_tokens', wideInteger, (column) => column.notNull())
        .addColumn('output_tokens', wideInteger, (column) => column.notNull())
        .addColumn('reasoning_tokens', wideInteger, (column) => column.notNull())
        .addColumn('cost', wideInteger, (column) => column.notNull())
        .addPrimaryKeyConstraint('usage_rollups_key', [
          'account_id',
          'hour',
          'api_key_id',
          'model',
          'deployment',
        ])
        .execute();
      await database.schema
        .createIndex('usage_rollups_key_hour_index')
        .on('usage_rollups')
        .columns(['api_key_id', 'hour'])
        .execute();
      await database.schema
        .createIndex('usage_rollups_hour_index')
        .on('usage_rollups')
        .column('hour')
        .execute();
      await sql`insert into usage_rollups (${sql.raw(rolledUp)})
        select account_id, created_at - created_at % 3600000, api_key_id, model,
          coalesce(deployment, ''), count(*), sum(input_tokens), sum(input_cache_read_tokens),
          sum(input_cache_write_5m_tokens + input_cache_write_1h_tokens), sum(output_tokens),
          sum(reasoning_tokens), sum(cost)
        from usage_records
        group by account_id, created_at - created_at % 3600000, api_key_id, model,
          coalesce(deployment, '')`.execute(database);
      if (dialect === 'postgres') {
        // search_path from current: the trigger finds the table in the store's own schema.
        await sql`create function usage_records_roll_up() returns trigger language plpgsql
          set search_path from current as ${sql.raw(`$$ begin ${rollUpNewRecord}; return null; end $$`)}`.execute(
          database,
        );
        await sql`create trigger usage_records_roll_up after insert on usage_records
          for each row execute function usage_records_roll_up()`.execute(database);
      } else {
        await sql`create trigger usage_records_roll_up after insert on usage_records
          begin ${sql.raw(rollUpNewRecord)}; end`.execute(database);
      }
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await sql`drop trigger usage_records_roll_up${sql.raw(dialect === 'postgres' ? ' on usage_records' : '')}`.execute(
        database,
      );
      if (dialect === 'postgres')
        await sql`drop function usage_records_roll_up()`.execute(database);
      await database.schema.dropTable('usage_rollups').execute();
    },
  };
}
