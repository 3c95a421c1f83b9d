import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * The output items of stored responses by their id, so that an `item_reference` (which names an
 * item, not its response) is one indexed lookup (docs/decisions/0035). A row lives
 * as long as its response and is swept with it.
 */
export function createResponseItemsTableMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('response_items')
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('item_id', 'text', (column) => column.notNull())
        .addColumn('response_id', 'text', (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        // Ids are per account: another account's item is never found, not even by its id.
        .addPrimaryKeyConstraint('response_items_primary_key', ['account_id', 'item_id'])
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
      await database.schema
        .createIndex('response_items_expires_at_index')
        .on('response_items')
        .column('expires_at')
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('response_items').execute();
    },
  };
}
