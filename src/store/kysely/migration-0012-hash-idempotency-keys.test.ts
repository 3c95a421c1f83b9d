import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';

import {
  describeOnBothEngines,
  type MigrationDatabase,
} from '../../../test/support/migration-databases.ts';
import { hashIdempotencyKey } from '../../idempotency/hash-idempotency-key.ts';
import type { StoreDialect } from './kysely-database.ts';

function describeMigration(dialect: StoreDialect, open: () => Promise<MigrationDatabase>): void {
  describe(`migration 0012 on ${dialect}`, () => {
    it('replaces every stored key by its hash and keeps the answers', async () => {
      const { database, migrator: makeMigrator, close } = await open();
      try {
        const migrator = makeMigrator();
        expect((await migrator.migrateTo('0011_usage_charges_on_records')).error).toBeUndefined();
        await sql`insert into accounts (id, name, is_admin, created_at)
          values ('account_old', 'Old', 0, 1)`.execute(database);
        for (const key of ['plain-key', 'other-key']) {
          await sql`insert into idempotency_entries (account_id, operation, key, fingerprint,
              claim_id, state, status, headers, body, created_at, expires_at)
            values ('account_old', 'evaluation', ${key}, 'fp', 'c', 'completed', 200, '{}',
              ${`body of ${key}`}, 1, 2)`.execute(database);
        }

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const rows = await sql<{ key: string; body: string }>`
          select key, body from idempotency_entries order by body`.execute(database);
        expect(rows.rows).toEqual([
          { key: hashIdempotencyKey('other-key'), body: 'body of other-key' },
          { key: hashIdempotencyKey('plain-key'), body: 'body of plain-key' },
        ]);
      } finally {
        await close();
      }
    });
  });
}

await describeOnBothEngines('migration 0012', describeMigration);
