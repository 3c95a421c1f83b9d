import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';
import { rollUpNewRecord } from './migration-0014-create-usage-rollups.ts';

/**
 * On SQLite the writers add their records to the hourly rollups themselves, once per hour and
 * keys of a commit (src/store/kysely/usage-rollup-sums.ts), so the per-record trigger goes
 * (docs/decisions/0180). No writer of an older build can still rely on it: an older build
 * refuses a file with a migration it does not know, and a newer one refuses to migrate a file a
 * live gateway serves (open-sqlite-store.ts). PostgreSQL keeps its trigger: there, many
 * processes of possibly different builds write.
 */
export function createSqliteRollupsPerCommitMigration(dialect: StoreDialect): Migration {
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await sql`drop trigger usage_records_roll_up`.execute(database);
    },

    async down(database: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`create trigger usage_records_roll_up after insert on usage_records
        begin ${sql.raw(rollUpNewRecord)}; end`.execute(database);
    },
  };
}
