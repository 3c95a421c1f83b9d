import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

import { createKyselyStore } from '../kysely/create-kysely-store.ts';
import type { Database } from '../kysely/kysely-database.ts';
import { migrateStoreToLatest } from '../kysely/migrate-store-to-latest.ts';
import type { Store } from '../store.ts';
import { adaptSqliteConnection } from './adapt-sqlite-connection.ts';

export interface SqliteStoreOptions {
  /** Database file; its folder is created when missing. `:memory:` gives a throwaway store. */
  path: string;
  /** How long a write waits for another process's write lock before failing. */
  busyTimeoutMilliseconds?: number;
}

/**
 * The embedded default (DESIGN.md §4). Open one store per file per process: better-sqlite3 is
 * synchronous, so a second connection in the same process would block the event loop while it
 * waits for the first one's transaction, which cannot finish until that wait gives up with
 * SQLITE_BUSY.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const busyTimeout = options.busyTimeoutMilliseconds ?? 5_000;
  if (!Number.isSafeInteger(busyTimeout) || busyTimeout < 0) {
    throw new RangeError(
      `busyTimeoutMilliseconds must be a non-negative integer, got ${busyTimeout}`,
    );
  }
  if (options.path !== ':memory:') {
    await mkdir(path.dirname(path.resolve(options.path)), { recursive: true });
  }
  const connection = new BetterSqlite3(options.path);
  try {
    // WAL lets readers proceed during a write; NORMAL is durable across application crashes in
    // WAL mode and only risks the last transactions on power loss (sqlite.org/pragma.html).
    connection.pragma('journal_mode = WAL');
    connection.pragma(`busy_timeout = ${busyTimeout}`);
    connection.pragma('synchronous = NORMAL');
    // SQLite leaves foreign keys off unless each connection asks.
    connection.pragma('foreign_keys = ON');
  } catch (error) {
    connection.close();
    throw error;
  }

  const database = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptSqliteConnection(connection) }),
  });
  try {
    await migrateStoreToLatest(database, 'sqlite');
  } catch (error) {
    await database.destroy();
    throw error;
  }
  return createKyselyStore(database, 'sqlite');
}
