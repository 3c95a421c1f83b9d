import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';
import { rollUpNewRecord } from './migration-0014-create-usage-rollups.ts';

/**
 * On SQLite the embedded store's group commit adds its records to the hourly rollups itself,
 * once per hour and keys of a commit (src/store/sqlite/usage-rollup-sums.ts), and marks them
 * `rolled_up`; the trigger now adds only records without the mark (docs/decisions/0179). Any
 * other writer, including a gateway of an older build still running while a newer CLI migrates
 * the file, writes records without it and keeps the sums through the trigger as before.
 * PostgreSQL is unchanged.
 */
export function createSqliteRollupsPerCommitMigration(dialect: StoreDialect): Migration {
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await database.schema.alterTable('usage_records').addColumn('rolled_up', 'integer').execute();
      await sql`drop trigger usage_records_roll_up`.execute(database);
      await sql`create trigger usage_records_roll_up after insert on usage_records
        when new.rolled_up is null
        begin ${sql.raw(rollUpNewRecord)}; end`.execute(database);
    },

    async down(database: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger usage_records_roll_up`.execute(database);
      await sql`create trigger usage_records_roll_up after insert on usage_records
        begin ${sql.raw(rollUpNewRecord)}; end`.execute(database);
      await database.schema.alterTable('usage_records').dropColumn('rolled_up').execute();
    },
  };
}
