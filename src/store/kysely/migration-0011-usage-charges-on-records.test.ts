import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';

import {
  describeOnBothEngines,
  type MigrationDatabase,
} from '../../../test/support/migration-databases.ts';
import { KyselyCreditLedger } from './kysely-credit-ledger.ts';
import type { Database, StoreDialect } from './kysely-database.ts';

/** A usage record as a settlement of migration 0004's layout wrote it. */
async function insertRecord(
  database: Kysely<Database>,
  settlementId: string | null,
  cost: number,
  createdAt: number,
): Promise<void> {
  await sql`insert into usage_records (request_id, account_id, api_key_id, surface, model,
      deployment, input_tokens, input_cache_read_tokens, input_cache_write_5m_tokens,
      input_cache_write_1h_tokens, output_tokens, reasoning_tokens, cost, shortfall,
      settlement_id, latency_ms, outcome, status, created_at)
    values (${`req_${createdAt}`}, 'account_old', 'key_old', 'messages', 'claude', null,
      10, 0, 0, 0, 5, 0, ${cost}, 0, ${settlementId}, 3, 'ok', 200, ${createdAt})`.execute(
    database,
  );
}

async function insertEntry(
  database: Kysely<Database>,
  id: string,
  amount: number,
  kind: string,
  createdAt: number,
): Promise<void> {
  await sql`insert into ledger_entries (id, account_id, amount, kind, reason, request_id, created_at)
    values (${id}, 'account_old', ${amount}, ${kind}, ${`${kind} ${id}`},
      ${kind === 'usage' ? `req_${createdAt}` : null}, ${createdAt})`.execute(database);
}

function describeMigration(dialect: StoreDialect, open: () => Promise<MigrationDatabase>): void {
  describe(`migration 0011 on ${dialect}`, () => {
    it('moves each usage entry onto its record and lists the ledger as it was', async () => {
      const { database, migrator: makeMigrator, close } = await open();
      try {
        const migrator = makeMigrator();
        expect((await migrator.migrateTo('0010_link_stored_responses')).error).toBeUndefined();
        await sql`insert into accounts (id, name, is_admin, created_at)
          values ('account_old', 'Old', 0, 1)`.execute(database);
        await insertEntry(database, 'grant_1', 1_000, 'grant', 10);
        // A settled charge: its entry and its record name the same settlement and amount.
        await insertEntry(database, 'le_charged', -120, 'usage', 20);
        await insertRecord(database, 'le_charged', 120, 20);
        // A settlement that charged nothing wrote a record and no entry.
        await insertRecord(database, 'le_free', 0, 30);
        // A usage entry whose record does not match it stays an entry.
        await insertEntry(database, 'le_orphan', -7, 'usage', 40);
        await insertRecord(database, 'le_orphan', 9, 40);
        await insertEntry(database, 'adjust_1', -50, 'adjustment', 50);

        expect((await migrator.migrateTo('0011_usage_charges_on_records')).error).toBeUndefined();
        const ledger = new KyselyCreditLedger(database, dialect);
        const entry = (id: string, amount: number, kind: string, createdAt: number) => ({
          id,
          accountId: 'account_old',
          amount,
          kind,
          reason: `${kind} ${id}`,
          requestId: kind === 'usage' ? `req_${createdAt}` : null,
          createdAt,
        });
        // Listed as the entries were before, newest first.
        expect(await ledger.listEntries('account_old', 10)).toEqual([
          entry('adjust_1', -50, 'adjustment', 50),
          entry('le_orphan', -7, 'usage', 40),
          entry('le_charged', -120, 'usage', 20),
          entry('grant_1', 1_000, 'grant', 10),
        ]);
        const left = await sql<{ id: string }>`select id from ledger_entries order by id`.execute(
          database,
        );
        expect(left.rows.map((row) => row.id)).toEqual(['adjust_1', 'grant_1', 'le_orphan']);
        // A limit below the number of entries takes the newest across both tables.
        expect((await ledger.listEntries('account_old', 2)).map((entry) => entry.id)).toEqual([
          'adjust_1',
          'le_orphan',
        ]);
        expect((await ledger.listEntries('account_old', 3)).map((entry) => entry.id)).toEqual([
          'adjust_1',
          'le_orphan',
          'le_charged',
        ]);

        // And back: the entry returns to ledger_entries.
        expect((await migrator.migrateTo('0010_link_stored_responses')).error).toBeUndefined();
        const restored = await sql<{
          id: string;
        }>`select id from ledger_entries order by id`.execute(database);
        expect(restored.rows.map((row) => row.id)).toEqual([
          'adjust_1',
          'grant_1',
          'le_charged',
          'le_orphan',
        ]);
      } finally {
        await close();
      }
    });
  });
}

await describeOnBothEngines('migration 0011', describeMigration);
