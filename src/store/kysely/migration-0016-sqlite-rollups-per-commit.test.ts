import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';

import {
  describeOnBothEngines,
  type MigrationDatabase,
} from '../../../test/support/migration-databases.ts';
import type { Database, StoreDialect } from './kysely-database.ts';

async function insertRecord(database: Kysely<Database>, requestId: string): Promise<void> {
  await sql`insert into usage_records (request_id, account_id, api_key_id, surface, model,
      deployment, input_tokens, input_cache_read_tokens, input_cache_write_5m_tokens,
      input_cache_write_1h_tokens, output_tokens, reasoning_tokens, cost, shortfall, latency_ms,
      outcome, status, created_at)
    values (${requestId}, 'acct_a', 'key_a', 'chat', 'model', null, 10, 0, 0, 0, 5, 0, 7, 0, 3,
      'ok', 200, 3600005)`.execute(database);
}

async function rolledUpRequests(database: Kysely<Database>): Promise<number[]> {
  const rows = await sql<{ requests: number | string }>`
    select requests from usage_rollups`.execute(database);
  return rows.rows.map((row) => Number(row.requests));
}

function describeMigration(dialect: StoreDialect, open: () => Promise<MigrationDatabase>): void {
  describe(`migration 0016 on ${dialect}`, () => {
    it(
      dialect === 'sqlite'
        ? 'drops the per-record rollup trigger, and brings it back when undone'
        : 'keeps the per-record rollup trigger',
      async () => {
        const { database, migrator: makeMigrator, close } = await open();
        try {
          const migrator = makeMigrator();
          expect((await migrator.migrateTo('0015_create_dashboard_tables')).error).toBeUndefined();
          await sql`insert into accounts (id, name, is_admin, created_at)
            values ('acct_a', 'acme', 0, 1)`.execute(database);
          await insertRecord(database, 'request_1');
          expect(await rolledUpRequests(database)).toEqual([1]);

          expect((await migrator.migrateToLatest()).error).toBeUndefined();
          await insertRecord(database, 'request_2');
          // On SQLite the writers add their records (UsageRollupSums); a bare insert adds none.
          expect(await rolledUpRequests(database)).toEqual([dialect === 'sqlite' ? 1 : 2]);

          expect((await migrator.migrateTo('0015_create_dashboard_tables')).error).toBeUndefined();
          await insertRecord(database, 'request_3');
          expect(await rolledUpRequests(database)).toEqual([dialect === 'sqlite' ? 2 : 3]);
          expect((await migrator.migrateToLatest()).error).toBeUndefined();
        } finally {
          await close();
        }
      },
    );
  });
}

await describeOnBothEngines('migration 0016', describeMigration);
