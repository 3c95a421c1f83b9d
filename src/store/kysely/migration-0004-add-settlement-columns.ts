import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * docs/decisions/0017: a usage record carries the shortfall of its settlement (the part of the
 * price the hold and the balance could not cover, never charged) and the id of the settlement
 * that wrote it. That id is unique, so a settlement retried after a store fault, or replayed
 * from the outbox after a crash, is written at most once.
 */
export function createSettlementColumnsMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .alterTable('usage_records')
        .addColumn('shortfall', wideInteger, (column) => column.notNull().defaultTo(0))
        .execute();
      await database.schema
        .alterTable('usage_records')
        .addColumn('settlement_id', 'text')
        .execute();
      await database.schema
        .createIndex('usage_records_settlement_index')
        .on('usage_records')
        .column('settlement_id')
        .unique()
        .execute();
    },
    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropIndex('usage_records_settlement_index').execute();
      await database.schema.alterTable('usage_records').dropColumn('settlement_id').execute();
      await database.schema.alterTable('usage_records').dropColumn('shortfall').execute();
    },
  };
}
