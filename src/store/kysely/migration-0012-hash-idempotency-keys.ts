import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import { hashIdempotencyKey } from '../../idempotency/hash-idempotency-key.ts';
import type { StoreDialect } from './kysely-database.ts';

/** Rows rewritten per select, so a large table is not read into memory at once. */
const batchSize = 500;

/**
 * Idempotency keys are kept as their SHA-256, never as sent (docs/decisions/0106): every stored
 * key is replaced by its hash, which is what lookups now compute, so answers stored before the
 * upgrade keep replaying. A hash is 64 lower-case hex digits and a key of that exact shape is
 * hashed again like any other, which only changes which row it names, never merges two.
 *
 * An image job carries the hashed key and the fingerprint of the create call that made it
 * (docs/decisions/0107), so a retry after a crash finds the job instead of making a second one.
 */
export function createHashIdempotencyKeysMigration(_dialect: StoreDialect): Migration {
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .alterTable('idempotency_entries')
        .addColumn('hashed', 'integer')
        .execute();
      for (;;) {
        const rows = await sql<{ account_id: string; operation: string; key: string }>`
          select account_id, operation, key from idempotency_entries
          where hashed is null limit ${batchSize}`.execute(database);
        if (rows.rows.length === 0) break;
        for (const row of rows.rows) {
          await sql`update idempotency_entries set key = ${hashIdempotencyKey(row.key)}, hashed = 1
            where account_id = ${row.account_id} and operation = ${row.operation}
              and key = ${row.key} and hashed is null`.execute(database);
        }
      }
      await database.schema.alterTable('idempotency_entries').dropColumn('hashed').execute();

      await database.schema.alterTable('image_jobs').addColumn('idempotency_key', 'text').execute();
      await database.schema
        .alterTable('image_jobs')
        .addColumn('request_fingerprint', 'text')
        .execute();
      await database.schema
        .createIndex('image_jobs_idempotency_key_index')
        .on('image_jobs')
        .columns(['account_id', 'idempotency_key'])
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropIndex('image_jobs_idempotency_key_index').execute();
      await database.schema.alterTable('image_jobs').dropColumn('request_fingerprint').execute();
      await database.schema.alterTable('image_jobs').dropColumn('idempotency_key').execute();
      // A hash cannot be turned back into its key: the stored answers are dropped instead.
      await sql`delete from idempotency_entries`.execute(database);
    },
  };
}
