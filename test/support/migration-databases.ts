import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, it } from 'vitest';

import { postgresStoreTypes } from '../../src/store/postgres/parse-postgres-int8.ts';
import { adaptSqliteConnection } from '../../src/store/sqlite/adapt-sqlite-connection.ts';
import type { Database, StoreDialect } from '../../src/store/kysely/kysely-database.ts';
import { createStoreMigrationProvider } from '../../src/store/kysely/migrate-store-to-latest.ts';
import {
  dropSchema,
  postgresConnectionString,
  probePostgres,
  uniqueSchema,
} from './isolated-test-stores.ts';

/** An empty database for a migration test, with what Kysely's migrator needs to run there. */
export interface MigrationDatabase {
  database: Kysely<Database>;
  migrationTableSchema?: string;
  /** A migrator over the store's migrations, to step to a point in their history. */
  migrator(): Migrator;
  close(): Promise<void>;
}

function withMigrator(
  dialect: StoreDialect,
  opened: Omit<MigrationDatabase, 'migrator'>,
): MigrationDatabase {
  const { database, migrationTableSchema } = opened;
  return {
    ...opened,
    migrator: () =>
      new Migrator({
        db: database,
        provider: createStoreMigrationProvider(dialect),
        ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }),
      }),
  };
}

async function openSqlite(): Promise<MigrationDatabase> {
  const connection = new BetterSqlite3(':memory:');
  connection.pragma('foreign_keys = ON');
  const database = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptSqliteConnection(connection) }),
  });
  return withMigrator('sqlite', { database, close: () => database.destroy() });
}

async function openPostgres(): Promise<MigrationDatabase> {
  const schema = uniqueSchema();
  const pool = new pg.Pool({
    connectionString: postgresConnectionString,
    types: postgresStoreTypes,
    options: `-c search_path=${schema}`,
  });
  await pool.query(`create schema "${schema}"`);
  const database = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return withMigrator('postgres', {
    database,
    migrationTableSchema: schema,
    async close() {
      await database.destroy();
      await dropSchema(schema);
    },
  });
}

/**
 * Runs `suite` once per engine, each time with a way to open an empty database of it. Under CI
 * PostgreSQL must answer, so its half runs there and fails loudly if it does not; elsewhere its
 * absence is said and that half is skipped.
 */
export async function describeOnBothEngines(
  name: string,
  suite: (dialect: StoreDialect, open: () => Promise<MigrationDatabase>) => void,
): Promise<void> {
  suite('sqlite', openSqlite);
  const ciRequiresPostgres = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';
  const unreachableReason = await probePostgres();
  if (unreachableReason === undefined || ciRequiresPostgres) {
    suite('postgres', openPostgres);
    return;
  }
  console.warn(`*** ${name} on PostgreSQL SKIPPED: ${unreachableReason}`);
  describe.skip(`${name} on postgres (skipped: ${unreachableReason})`, () => {
    it('needs a reachable PostgreSQL', () => {});
  });
}

/** Runs `work` with a migrator over an SQLite store file, on a connection of its own. */
async function withFileMigrator<Result>(
  file: string,
  work: (migrator: Migrator) => Promise<Result>,
): Promise<Result> {
  const connection = new BetterSqlite3(file);
  const database = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptSqliteConnection(connection) }),
  });
  try {
    return await work(
      new Migrator({ db: database, provider: createStoreMigrationProvider('sqlite') }),
    );
  } finally {
    await database.destroy();
  }
}

/**
 * Steps an SQLite store file back by its last migration, as an older build left it (a gateway may
 * be serving the file), and answers that migration's name.
 */
export function stepBackLastMigration(file: string): Promise<string> {
  return withFileMigrator(file, async (migrator) => {
    const names = (await migrator.getMigrations()).map((migration) => migration.name);
    const stepped = await migrator.migrateTo(names.at(-2) as string);
    if (stepped.error !== undefined) throw stepped.error;
    return names.at(-1) as string;
  });
}

/** Applies every migration an SQLite store file lacks. */
export function migrateFileToLatest(file: string): Promise<void> {
  return withFileMigrator(file, async (migrator) => {
    const migrated = await migrator.migrateToLatest();
    if (migrated.error !== undefined) throw migrated.error;
  });
}
