import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * The lease that keeps a second gateway process off an embedded (SQLite) store, whose holds
 * live in the owning process's memory (sqlite-process-lease.ts). PostgreSQL stores serve many
 * processes and never use it; the table exists there too so both schemas stay one history.
 */
export function createProcessLeaseMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('process_lease')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('owner', 'text', (column) => column.notNull())
        .addColumn('pid', 'integer', (column) => column.notNull())
        .addColumn('host', 'text', (column) => column.notNull())
        .addColumn('heartbeat_at', wideInteger, (column) => column.notNull())
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
    },
    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('process_lease').execute();
    },
  };
}
