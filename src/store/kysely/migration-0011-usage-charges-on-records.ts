import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * A settled call's charge lives on its usage record instead of a ledger entry of its own
 * (docs/decisions/0093). The record already carried the amount (`cost`, what was charged), the
 * settlement id (unique), the request id and the time; what only the entry had is its reason,
 * now `charge_reason`, set on the records that charged anything. The ledger a client or operator
 * reads is then the operator's entries (grants, adjustments) together with those records.
 *
 * Existing usage entries move onto their records: the reason is copied where the entry and the
 * record name the same settlement and the same amount, and then the entry is deleted. A usage
 * entry without such a record (none is written so, but a file may have been edited) stays in
 * `ledger_entries` and is listed as before.
 */
export function createUsageChargesOnRecordsMigration(_dialect: StoreDialect): Migration {
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .alterTable('usage_records')
        .addColumn('charge_reason', 'text')
        .execute();
      await sql`update usage_records set charge_reason = (
          select reason from ledger_entries
          where ledger_entries.id = usage_records.settlement_id
            and ledger_entries.kind = 'usage'
            and ledger_entries.amount = 0 - usage_records.cost
            and ledger_entries.account_id = usage_records.account_id)
        where settlement_id is not null and cost > 0`.execute(database);
      await sql`delete from ledger_entries
        where kind = 'usage'
          and id in (select settlement_id from usage_records where charge_reason is not null)`.execute(
        database,
      );
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await sql`insert into ledger_entries (id, account_id, amount, kind, reason, request_id, created_at)
        select settlement_id, account_id, 0 - cost, 'usage', charge_reason, request_id, created_at
        from usage_records where charge_reason is not null
        order by sequence`.execute(database);
      await database.schema.alterTable('usage_records').dropColumn('charge_reason').execute();
    },
  };
}
