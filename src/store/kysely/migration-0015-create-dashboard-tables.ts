import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Dashboard sign-in links and sessions (src/dashboard/dashboard-session-store.ts,
 * docs/decisions/0168), keyed by the SHA-256 of their secrets; and an index for an account's
 * image jobs newest first, which the dashboard lists.
 */
export function createDashboardTablesMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  const strict = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(builder: T) =>
    dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder;
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('dashboard_sign_in_links')
        .addColumn('code_hash', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .addColumn('used_at', wideInteger)
        .$call(strict)
        .execute();
      await database.schema
        .createIndex('dashboard_sign_in_links_expires_at_index')
        .on('dashboard_sign_in_links')
        .column('expires_at')
        .execute();
      await database.schema
        .createTable('dashboard_sessions')
        .addColumn('id_hash', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('csrf_token', 'text', (column) => column.notNull())
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .$call(strict)
        .execute();
      await database.schema
        .createIndex('dashboard_sessions_expires_at_index')
        .on('dashboard_sessions')
        .column('expires_at')
        .execute();
      await database.schema
        .createIndex('image_jobs_account_created_index')
        .on('image_jobs')
        .columns(['account_id', 'created_at'])
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropIndex('image_jobs_account_created_index').execute();
      await database.schema.dropTable('dashboard_sessions').execute();
      await database.schema.dropTable('dashboard_sign_in_links').execute();
    },
  };
}
