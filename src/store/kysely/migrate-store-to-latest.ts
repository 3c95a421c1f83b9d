import { Migrator } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';

import { StoreNewerThanBuildError } from '../store-newer-than-build-error.ts';
import type { Database, StoreDialect } from './kysely-database.ts';
import { createStoreTablesMigration } from './migration-0001-create-store-tables.ts';
import { createResponsesTableMigration } from './migration-0002-create-responses-table.ts';
import { createProcessLeaseMigration } from './migration-0003-create-process-lease.ts';
import { createSettlementColumnsMigration } from './migration-0004-add-settlement-columns.ts';
import { createResponseItemsTableMigration } from './migration-0005-create-response-items-table.ts';
import { createIdempotencyTableMigration } from './migration-0006-create-idempotency-table.ts';
import { createStorageTablesMigration } from './migration-0007-create-storage-tables.ts';
import { createImageJobsTableMigration } from './migration-0008-create-image-jobs-table.ts';
import { createLinkStoredResponsesMigration } from './migration-0010-link-stored-responses.ts';
import { createUsageChargesOnRecordsMigration } from './migration-0011-usage-charges-on-records.ts';
import { createHashIdempotencyKeysMigration } from './migration-0012-hash-idempotency-keys.ts';
import { createUsageReportingMigration } from './migration-0013-usage-reporting-and-token-controls.ts';
import { createUsageRollupsMigration } from './migration-0014-create-usage-rollups.ts';
import { createDashboardTablesMigration } from './migration-0015-create-dashboard-tables.ts';
import { createSqliteRollupsPerCommitMigration } from './migration-0016-sqlite-rollups-per-commit.ts';

/**
 * Migrations live in code, not in a folder read at run time, so a bundled or installed
 * gateway carries them. Names sort in the order they must run.
 */
export function createStoreMigrationProvider(dialect: StoreDialect): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001_create_store_tables': createStoreTablesMigration(dialect),
        '0002_create_responses_table': createResponsesTableMigration(dialect),
        '0003_create_process_lease': createProcessLeaseMigration(dialect),
        '0004_add_settlement_columns': createSettlementColumnsMigration(dialect),
        '0005_create_response_items_table': createResponseItemsTableMigration(dialect),
        '0006_create_idempotency_table': createIdempotencyTableMigration(dialect),
        '0007_create_storage_tables': createStorageTablesMigration(dialect),
        '0008_create_image_jobs_table': createImageJobsTableMigration(dialect),
        '0010_link_stored_responses': createLinkStoredResponsesMigration(dialect),
        '0011_usage_charges_on_records': createUsageChargesOnRecordsMigration(dialect),
        '0012_hash_idempotency_keys': createHashIdempotencyKeysMigration(dialect),
        '0013_usage_reporting_and_token_controls': createUsageReportingMigration(dialect),
        '0014_create_usage_rollups': createUsageRollupsMigration(dialect),
        '0015_create_dashboard_tables': createDashboardTablesMigration(dialect),
        '0016_sqlite_rollups_per_commit': createSqliteRollupsPerCommitMigration(dialect),
      };
    },
  };
}

export interface MigrateStoreOptions {
  /**
   * Where Kysely keeps its migration bookkeeping tables. Required on PostgreSQL: without it
   * Kysely looks for them in every schema and may find another schema's copy.
   */
  migrationTableSchema?: string;
}

function storeMigrator(
  database: Kysely<Database>,
  dialect: StoreDialect,
  options: MigrateStoreOptions,
): Migrator {
  return new Migrator({
    db: database,
    provider: createStoreMigrationProvider(dialect),
    ...(options.migrationTableSchema === undefined
      ? {}
      : { migrationTableSchema: options.migrationTableSchema }),
  });
}

/** The names of the migrations this build would apply to the store, in order. */
export async function pendingStoreMigrations(
  database: Kysely<Database>,
  dialect: StoreDialect,
  options: MigrateStoreOptions = {},
): Promise<string[]> {
  const migrations = await storeMigrator(database, dialect, options).getMigrations();
  return migrations
    .filter((migration) => migration.executedAt === undefined)
    .map((migration) => migration.name);
}

/** Applies every pending migration; throws the first failure. */
export async function migrateStoreToLatest(
  database: Kysely<Database>,
  dialect: StoreDialect,
  options: MigrateStoreOptions = {},
): Promise<void> {
  const { error, results } = await storeMigrator(database, dialect, options).migrateToLatest();
  // Kysely's words for a store that already ran a migration this build does not have.
  const newer = /previously executed migration (\S+) is missing/.exec(String(error))?.[1];
  if (newer !== undefined) {
    throw new StoreNewerThanBuildError(
      `The store was upgraded by a newer Switchyard build: it has migration ${newer}, which this build does not know. Run that build or a newer one; going back needs the backup taken before the upgrade (docs/deployment.md, "Upgrades and rollback").`,
      { cause: error },
    );
  }
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(
      `Store migration ${failed?.migrationName ?? '(before any migration ran)'} failed`,
      { cause: error },
    );
  }
}
