import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';

import {
  describeOnBothEngines,
  type MigrationDatabase,
} from '../../../test/support/migration-databases.ts';
import { KyselyResponseStore } from './kysely-response-store.ts';
import type { StoreDialect } from './kysely-database.ts';

const history = [
  { role: 'user', content: 'My name is Ada.' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello Ada.' }] },
  { role: 'user', content: 'What is my name?' },
];
const output = [{ id: 'msg_old', type: 'message', role: 'assistant', content: 'Ada.' }];

function describeMigration(dialect: StoreDialect, open: () => Promise<MigrationDatabase>): void {
  describe(`migration 0010 on ${dialect}`, () => {
    it('turns a row of the first layout into a chain of one that reads, continues and sweeps', async () => {
      const { database, migrator: makeMigrator, close } = await open();
      try {
        const migrator = makeMigrator();
        const before = await migrator.migrateTo('0007_create_storage_tables');
        expect(before.error).toBeUndefined();
        // What migration 0005's layout wrote: the whole expanded history in `input`.
        await sql`insert into accounts (id, name, is_admin, created_at)
          values ('account_old', 'Old', 0, 1)`.execute(database);
        await sql`insert into responses
          (id, account_id, model, created_at, expires_at, instructions, input, output)
          values ('resp_old', 'account_old', 'model', 100, 1000, null,
            ${JSON.stringify(history)}, ${JSON.stringify(output)})`.execute(database);
        await sql`insert into response_items (account_id, item_id, response_id, expires_at)
          values ('account_old', 'msg_old', 'resp_old', 1000)`.execute(database);

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const store = new KyselyResponseStore(database);
        const old = {
          id: 'resp_old',
          accountId: 'account_old',
          model: 'model',
          createdAt: 100,
          expiresAt: 1000,
          instructions: null,
          previousResponseId: null,
          input: history,
          output,
        };
        expect(await store.findResponseChain('resp_old', 'account_old', 500, 10)).toEqual([old]);

        // A new turn links to it and keeps it alive past its own expiry.
        const next = {
          ...old,
          id: 'resp_new',
          createdAt: 900,
          expiresAt: 2000,
          previousResponseId: 'resp_old',
          input: [{ role: 'user', content: 'And mine?' }],
          output: [],
        };
        await store.saveResponse(next);
        expect(await store.findResponseChain('resp_new', 'account_old', 1500, 10)).toEqual([
          old,
          next,
        ]);
        expect(await store.deleteExpiredResponses(1500, 10)).toBe(0);
        expect(await store.deleteExpiredResponses(2000, 10)).toBe(2);
        expect((await store.findOutputItems(['msg_old'], 'account_old', 0)).size).toBe(0);
      } finally {
        await close();
      }
    });
  });
}

await describeOnBothEngines('migration 0010', describeMigration);
