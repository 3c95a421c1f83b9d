import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

import type { StoreDialect } from './kysely-database.ts';

/**
 * Image generation jobs (src/features/images/image-job-store.ts, docs/decisions/0070). JSON
 * columns are text on both engines: they are read and written whole. Workers claim by
 * (queue, state, lease_until), so that is the index.
 */
export function createImageJobsTableMigration(dialect: StoreDialect): Migration {
  const wideInteger = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(database: Kysely<unknown>): Promise<void> {
      await database.schema
        .createTable('image_jobs')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
        .addColumn('api_key_id', 'text', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('queue', 'text', (column) => column.notNull())
        .addColumn('parameters', 'text', (column) => column.notNull())
        .addColumn('input_asset_ids', 'text', (column) => column.notNull())
        .addColumn('hold_id', 'text')
        .addColumn('price_per_image', wideInteger, (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('deployment_index', 'integer')
        .addColumn('upstream_job_id', 'text')
        .addColumn('poll_url', 'text')
        .addColumn('result_asset_ids', 'text')
        .addColumn('charged', wideInteger)
        .addColumn('error', 'text')
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', wideInteger)
        .addColumn('created_at', wideInteger, (column) => column.notNull())
        .addColumn('deadline_at', wideInteger, (column) => column.notNull())
        .addColumn('finished_at', wideInteger)
        .$call((builder) => (dialect === 'sqlite' ? builder.modifyEnd(sql`strict`) : builder))
        .execute();
      await database.schema
        .createIndex('image_jobs_claim_index')
        .on('image_jobs')
        .columns(['queue', 'state', 'lease_until'])
        .execute();
    },

    async down(database: Kysely<unknown>): Promise<void> {
      await database.schema.dropTable('image_jobs').execute();
    },
  };
}
