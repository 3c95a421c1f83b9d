import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Idempotency entries (src/idempotency/idempotency-store.ts): one row per (account, operation,
 * key). The answer body is text, not jsonb: a replay must send back the exact bytes.
 * `expires_at` is the claim's end while the row is pending and the replay window's end once it
 * is completed; the sweep deletes by it.
 */
export function createIdempotencyTableMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('idempotency_entries')
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('operation', 'text', (column) => column.notNull())
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('fingerprint', 'text', (column) => column.notNull())
        .addColumn('claim_id', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('status', 'integer')
        .addColumn('headers', 'text')
        .addColumn('body', 'text')
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .addPrimaryKeyConstraint('idempotency_entries_primary_key', [
          'account_id',
          'operation',
          'key',
        ])
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
      await database.schema
        .createIndex('idempotency_entries_expires_at_index')
        .on('idempotency_entries')
        .column('expires_at')
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('idempotency_entries').execute();
    },
  };
}
