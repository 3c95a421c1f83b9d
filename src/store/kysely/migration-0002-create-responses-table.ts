import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Stored responses for `previous_response_id` (docs/decisions/0012). Items are JSON text, not
 * PostgreSQL jsonb: a replayed item must come back exactly as it was sent, key order included.
 */
export function createResponsesTableMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('responses')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .addColumn('instructions', 'text')
        .addColumn('input', 'text', (column) => column.notNull())
        .addColumn('output', 'text', (column) => column.notNull())
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
      // The retention sweep deletes by expiry; lookups go through the primary key.
      await database.schema
        .createIndex('responses_expires_at_index')
        .on('responses')
        .column('expires_at')
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('responses').execute();
    },
  };
}
