import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Stored responses become a chain (docs/decisions/0037): a row keeps only the items
 * its turn added and links to the response it continued, so a conversation costs storage in
 * proportion to its length instead of its square.
 *
 * - `previous_response_id`: the link, null for the first turn of a chain. No foreign key: the
 *   sweep deletes a whole chain at once, and a dangling link must read as a broken chain, not
 *   block a delete.
 * - `root_id`: the first response of the chain, which names the chain in `response_chains`.
 * - `response_chains`: one row per chain with the expiry of its latest response, so an earlier
 *   response lives as long as a later one needs it, and saving a turn updates one small row
 *   instead of every earlier one.
 *
 * Rows of the first layout hold their whole expanded history and no link: each is a chain of
 * one, its own root, so they are converted by filling `root_id` and one chain row apiece. Their
 * JSON is left untouched.
 */
export function createLinkStoredResponsesMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      // SQLite adds one column per statement.
      await database.schema
        .alterTable('responses')
        .addColumn('previous_response_id', 'text')
        .execute();
      await database.schema.alterTable('responses').addColumn('root_id', 'text').execute();
      await sql`update responses set root_id = id`.execute(database);
      await database.schema
        .createIndex('responses_root_id_index')
        .on('responses')
        .column('root_id')
        .execute();

      await database.schema
        .createTable('response_chains')
        .addColumn('root_id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
      await database.schema
        .createIndex('response_chains_expires_at_index')
        .on('response_chains')
        .column('expires_at')
        .execute();
      await sql`insert into response_chains (root_id, account_id, expires_at)
        select id, account_id, expires_at from responses`.execute(database);

      // The sweep deletes the item index of a chain's responses by response id.
      await database.schema
        .createIndex('response_items_response_id_index')
        .on('response_items')
        .column('response_id')
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropIndex('response_items_response_id_index').execute();
      await database.schema.dropTable('response_chains').execute();
      await database.schema.dropIndex('responses_root_id_index').execute();
      await database.schema.alterTable('responses').dropColumn('root_id').execute();
      await database.schema.alterTable('responses').dropColumn('previous_response_id').execute();
    },
  };
}
