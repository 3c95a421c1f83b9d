import { sql } from 'kysely';
import type { CreateTableBuilder, Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Accounts, api keys, the credits ledger (entries, balances, holds) and usage records.
 * Migrations take `Kysely<unknown>` on purpose: they describe the schema at their point in
 * history, not the current `Database` type.
 */
export function createStoreTablesMigration(dialect: StoreDialect): Migration {
  // PostgreSQL needs int8 for micro-credits and epoch milliseconds; SQLite's INTEGER is 64-bit.
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  // STRICT makes SQLite refuse a REAL or TEXT where an integer belongs, as PostgreSQL does.
  const finish = <Table extends string, Column extends string>(
    builder: CreateTableBuilder<Table, Column>,
  ): CreateTableBuilder<Table, Column> =>
    dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder;

  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('accounts')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('is_admin', 'integer', (column) => column.notNull())
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addCheckConstraint('accounts_is_admin_check', sql`is_admin in (0, 1)`)
        .$call(finish)
        .execute();

      await database.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('hash', 'text', (column) => column.notNull())
        .addColumn('display_prefix', 'text', (column) => column.notNull())
        .addColumn('permissions', 'text', (column) => column.notNull())
        .addColumn('interface', 'text', (column) => column.notNull())
        .addColumn('allowed_models', 'text')
        .addColumn('expires_at', wideInteger)
        .addColumn('disabled_at', wideInteger)
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .$call(finish)
        .execute();
      // Every authenticated request looks its token up by hash.
      await database.schema
        .createIndex('api_keys_hash_unique')
        .on('api_keys')
        .column('hash')
        .unique()
        .execute();
      await database.schema
        .createIndex('api_keys_account_id_index')
        .on('api_keys')
        .column('account_id')
        .execute();

      await database.schema
        .createTable('ledger_entries')
        // Never deleted (append-only), so SQLite's rowid alias grows monotonically without
        // AUTOINCREMENT's extra bookkeeping.
        .addColumn('sequence', wideInteger, (column) =>
          dialect === 'postgres'
            ? column.primaryKey().generatedAlwaysAsIdentity()
            : column.primaryKey(),
        )
        .addColumn('id', 'text', (column) => column.notNull().unique())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('amount', wideInteger, (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('reason', 'text', (column) => column.notNull())
        .addColumn('request_id', 'text')
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addCheckConstraint(
          'ledger_entries_kind_check',
          sql`kind in ('grant', 'adjustment', 'usage')`,
        )
        .$call(finish)
        .execute();
      await database.schema
        .createIndex('ledger_entries_account_created_index')
        .on('ledger_entries')
        .columns(['account_id', 'created_at', 'sequence'])
        .execute();

      // docs/architecture.md: the aggregate the request path reads instead of summing entries.
      await database.schema
        .createTable('balances')
        .addColumn('account_id', 'text', (column) => column.primaryKey().references('accounts.id'))
        .addColumn('balance', wideInteger, (column) => column.notNull())
        .addColumn('held', wideInteger, (column) => column.notNull())
        // A negative sum of open holds can only come from a bug; fail the statement instead.
        .addCheckConstraint('balances_held_check', sql`held >= 0`)
        .$call(finish)
        .execute();

      await database.schema
        .createTable('holds')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('amount', wideInteger, (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('expires_at', wideInteger, (column) => column.notNull())
        .addCheckConstraint('holds_amount_check', sql`amount >= 0`)
        .addCheckConstraint('holds_status_check', sql`status in ('open', 'settled', 'released')`)
        .$call(finish)
        .execute();
      // The expiry sweep only ever looks at open holds; closed ones stay out of the index.
      await database.schema
        .createIndex('holds_open_expires_index')
        .on('holds')
        .column('expires_at')
        .where(sql.ref('status'), '=', 'open')
        .execute();

      await database.schema
        .createTable('usage_records')
        .addColumn('sequence', wideInteger, (column) =>
          dialect === 'postgres'
            ? column.primaryKey().generatedAlwaysAsIdentity()
            : column.primaryKey(),
        )
        .addColumn('request_id', 'text', (column) => column.notNull())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('api_key_id', 'text', (column) => column.notNull())
        .addColumn('surface', 'text', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('deployment', 'text')
        .addColumn('input_tokens', wideInteger, (column) => column.notNull())
        .addColumn('input_cache_read_tokens', wideInteger, (column) => column.notNull())
        .addColumn('input_cache_write_5m_tokens', wideInteger, (column) => column.notNull())
        .addColumn('input_cache_write_1h_tokens', wideInteger, (column) => column.notNull())
        .addColumn('output_tokens', wideInteger, (column) => column.notNull())
        .addColumn('reasoning_tokens', wideInteger, (column) => column.notNull())
        .addColumn('cost', wideInteger, (column) => column.notNull())
        .addColumn('latency_ms', wideInteger, (column) => column.notNull())
        .addColumn('outcome', 'text', (column) => column.notNull())
        .addColumn('status', 'integer', (column) => column.notNull())
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .$call(finish)
        .execute();
      await database.schema
        .createIndex('usage_records_account_created_index')
        .on('usage_records')
        .columns(['account_id', 'created_at', 'sequence'])
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      for (const table of [
        'usage_records',
        'holds',
        'balances',
        'ledger_entries',
        'api_keys',
        'accounts',
      ]) {
        await database.schema.dropTable(table).execute();
      }
    },
  };
}
