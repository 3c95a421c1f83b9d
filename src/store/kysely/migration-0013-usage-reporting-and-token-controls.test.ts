import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';

import {
  describeOnBothEngines,
  type MigrationDatabase,
} from '../../../test/support/migration-databases.ts';
import type { StoreDialect } from './kysely-database.ts';

function describeMigration(dialect: StoreDialect, open: () => Promise<MigrationDatabase>): void {
  describe(`migration 0013 on ${dialect}`, () => {
    it('keeps the oldest account of a shared name on it, gives the others their id, and then refuses a repeat', async () => {
      const { database, migrator: makeMigrator, close } = await open();
      try {
        const migrator = makeMigrator();
        expect((await migrator.migrateTo('0012_hash_idempotency_keys')).error).toBeUndefined();
        for (const [id, name, createdAt] of [
          ['acct_b', 'acme', 5],
          ['acct_a', 'acme', 5],
          ['acct_c', 'acme', 9],
          ['acct_d', 'solo', 1],
        ] as const) {
          await sql`insert into accounts (id, name, is_admin, created_at)
            values (${id}, ${name}, 0, ${createdAt})`.execute(database);
        }

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const rows = await sql<{ id: string; name: string }>`
          select id, name from accounts order by id`.execute(database);
        expect(rows.rows).toEqual([
          { id: 'acct_a', name: 'acme' },
          { id: 'acct_b', name: 'acme (acct_b)' },
          { id: 'acct_c', name: 'acme (acct_c)' },
          { id: 'acct_d', name: 'solo' },
        ]);
        await expect(
          sql`insert into accounts (id, name, is_admin, created_at)
            values ('acct_e', 'solo', 0, 2)`.execute(database),
        ).rejects.toThrow();

        expect((await migrator.migrateTo('0012_hash_idempotency_keys')).error).toBeUndefined();
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
      } finally {
        await close();
      }
    });
  });
}

await describeOnBothEngines('migration 0013', describeMigration);
