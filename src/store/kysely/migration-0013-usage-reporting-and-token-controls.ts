import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Usage reporting and per-token controls (docs/operations.md, docs/decisions/0166).
 *
 * - `usage_records.first_token_ms`: how long the client waited for the first byte of its answer,
 *   null when none left (a refusal, an error before any answer).
 * - Two indexes for the reports: by token and time (a token's report, its budget's spend) and by
 *   time alone (an operator's report over every account). The account's own report uses the
 *   index migration 0001 made.
 * - `api_keys`: a spend budget (micro-credits per period) and rate limits of its own (JSON of
 *   the configured limit set's shape), both null when the token has none.
 * - Account names become unique so they can stand wherever an account id does. Names that are
 *   already taken twice keep the oldest account's name; the others get their id appended, which
 *   keeps every account findable and loses nothing.
 */
export function createUsageReportingMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .alterTable('usage_records')
        .addColumn('first_token_ms', wideInteger)
        .execute();
      await database.schema
        .createIndex('usage_records_key_created_index')
        .on('usage_records')
        .columns(['api_key_id', 'created_at', 'sequence'])
        .execute();
      await database.schema
        .createIndex('usage_records_created_index')
        .on('usage_records')
        .columns(['created_at', 'sequence'])
        .execute();
      await database.schema.alterTable('api_keys').addColumn('budget_micro', wideInteger).execute();
      await database.schema.alterTable('api_keys').addColumn('budget_period', 'text').execute();
      await database.schema.alterTable('api_keys').addColumn('limits', 'text').execute();
      await sql`update accounts set name = name || ' (' || id || ')'
        where exists (select 1 from accounts earlier
          where earlier.name = accounts.name
            and (earlier.created_at < accounts.created_at
              or (earlier.created_at = accounts.created_at and earlier.id < accounts.id)))`.execute(
        database,
      );
      await database.schema
        .createIndex('accounts_name_unique')
        .on('accounts')
        .column('name')
        .unique()
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropIndex('accounts_name_unique').execute();
      await database.schema.alterTable('api_keys').dropColumn('limits').execute();
      await database.schema.alterTable('api_keys').dropColumn('budget_period').execute();
      await database.schema.alterTable('api_keys').dropColumn('budget_micro').execute();
      await database.schema.dropIndex('usage_records_created_index').execute();
      await database.schema.dropIndex('usage_records_key_created_index').execute();
      await database.schema.alterTable('usage_records').dropColumn('first_token_ms').execute();
    },
  };
}
