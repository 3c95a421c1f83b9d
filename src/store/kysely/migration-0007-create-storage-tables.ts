import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Stored files and per-account storage (docs/decisions/0050). `storage_accounts` carries the
 * running totals the quota check updates conditionally, so a write never scans `assets`
 * (docs/architecture.md).
 */
export function createStorageTablesMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  const strict = <Builder extends { modifyEnd(modifier: ReturnType<typeof sql>): Builder }>(
    builder: Builder,
  ) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder);
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('storage_accounts')
        .addColumn('account_id', 'text', (column) => column.primaryKey().references('accounts.id'))
        .addColumn('used_bytes', wideInteger, (column) => column.notNull().defaultTo(0))
        .addColumn('file_count', wideInteger, (column) => column.notNull().defaultTo(0))
        .addColumn('quota_bytes', wideInteger)
        .addColumn('retention_days', 'integer')
        .$call(strict)
        .execute();
      await database.schema
        .createTable('assets')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('blob_key', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('size', wideInteger, (column) => column.notNull())
        .addColumn('content_type', 'text', (column) => column.notNull())
        .addColumn('sha256', 'text', (column) => column.notNull())
        .addColumn('source', 'text', (column) => column.notNull())
        .addColumn('folder', 'text', (column) => column.notNull())
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('delete_at', wideInteger, (column) => column.notNull())
        .addColumn('protected', 'integer', (column) => column.notNull())
        // pending: the upload deadline; deleting: until when a deleter holds the row.
        .addColumn('claimed_until', wideInteger)
        .$call(strict)
        .execute();
      // The list (newest first, keyset cursor) and the sweeper's two scans.
      await database.schema
        .createIndex('assets_account_listing_index')
        .on('assets')
        .columns(['account_id', 'status', 'created_at', 'id'])
        .execute();
      await database.schema
        .createIndex('assets_expiry_index')
        .on('assets')
        .columns(['status', 'delete_at'])
        .execute();
      await database.schema
        .createIndex('assets_claim_index')
        .on('assets')
        .columns(['status', 'claimed_until'])
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('assets').execute();
      await database.schema.dropTable('storage_accounts').execute();
    },
  };
}
