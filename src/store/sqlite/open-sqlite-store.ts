import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

import { createKyselyStore } from '../kysely/create-kysely-store.ts';
import type { Database } from '../kysely/kysely-database.ts';
import { migrateStoreToLatest, pendingStoreMigrations } from '../kysely/migrate-store-to-latest.ts';
import { StoreHeldError } from '../store-held-error.ts';
import type { Store } from '../store.ts';
import { adaptSqliteConnection } from './adapt-sqlite-connection.ts';
import { SqliteBillingWrites } from './sqlite-billing-writes.ts';
import { SqliteOwnedIdempotency } from './sqlite-owned-idempotency.ts';
import { SqliteOwnedLedger } from './sqlite-owned-ledger.ts';
import { SqliteOwnedResponses } from './sqlite-owned-responses.ts';
import {
  describeHolder,
  readLiveLease,
  takeProcessLease,
  type ProcessLease,
} from './sqlite-process-lease.ts';

export interface SqliteStoreOptions {
  /** Database file; its folder is created when missing. `:memory:` gives a throwaway store. */
  path: string;
  /** How long a write waits for another process's write lock before failing. */
  busyTimeoutMilliseconds?: number;
  /**
   * True for the gateway process: it takes the process lease (one gateway per file), keeps holds
   * in memory and commits usage charges and records in groups (sqlite-owned-ledger.ts). The
   * operator CLI and tools leave it false and use the durable ledger directly.
   */
  owner?: boolean;
  /**
   * The owner's ledger: how long an account's balance, as last read or committed, is used without
   * reading its row again (docs/decisions/0091). Default 20.
   */
  knownBalanceMilliseconds?: number;
}

/**
 * SQLite's page cache per connection, in KiB. better-sqlite3 builds SQLite with 16 MiB, which a
 * gateway fills within minutes with pages of the usage history it only ever appends to (~23 MB
 * of resident memory); what the request path reads again (the right edge of each table and
 * index, the balance rows, recent keys) fits in a fraction of SQLite's own default of 2 MiB.
 */
const pageCacheKibibytes = 2_000;

/**
 * The embedded default (docs/architecture.md). Open one store per file per process: better-sqlite3
 * is synchronous, so a second connection in the same process would block the event loop while it
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
    connection.pragma(`cache_size = -${pageCacheKibibytes}`);
  } catch (error) {
    connection.close();
    throw error;
  }

  const database = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptSqliteConnection(connection) }),
  });
  try {
    await refuseToUpgradeUnderLiveGateway(database, connection);
    await migrateStoreToLatest(database, 'sqlite');
  } catch (error) {
    await database.destroy();
    throw error;
  }
  const store = createKyselyStore(database, 'sqlite');
  if (options.owner !== true || options.path === ':memory:') {
    return options.owner === true ? ownStore(store, connection, options) : store;
  }
  let lease: ProcessLease;
  try {
    lease = takeProcessLease(connection);
  } catch (error) {
    await store.close();
    throw error;
  }
  return ownStore(store, connection, options, lease);
}

/**
 * A gateway that serves the file runs the statements of its own build against the schema it
 * started with: a newer build (the CLI, or a gateway started beside it) must not migrate the
 * file under it. Stopping that gateway first is the upgrade; the new one migrates on start.
 */
async function refuseToUpgradeUnderLiveGateway(
  database: Kysely<Database>,
  connection: BetterSqlite3.Database,
): Promise<void> {
  const pending = await pendingStoreMigrations(database, 'sqlite');
  if (pending.length === 0) return;
  const holder = readLiveLease(connection);
  if (holder === undefined) return;
  throw new StoreHeldError(
    `${describeHolder(holder, Date.now())} serves this SQLite store with an older schema, and this build would upgrade it (${pending.join(', ')}). Stop that gateway first; a gateway of this build upgrades the store when it starts (docs/operations.md).`,
  );
}

/**
 * Puts the owned ledger, the group-committed usage records and stored responses, and the
 * in-memory idempotency claims in front of the durable store.
 */
function ownStore(
  store: Store,
  connection: BetterSqlite3.Database,
  options: SqliteStoreOptions,
  lease?: ProcessLease,
): Store {
  const writes = new SqliteBillingWrites(connection, {
    ...(options.knownBalanceMilliseconds === undefined
      ? {}
      : { knownForMs: options.knownBalanceMilliseconds }),
  });
  const durableUsage = store.usage;
  return {
    ...store,
    ledger: new SqliteOwnedLedger(writes, store.ledger),
    idempotency: new SqliteOwnedIdempotency(connection, writes, store.idempotency),
    responses: new SqliteOwnedResponses(connection, writes, store.responses),
    usage: {
      recordUsage: (record) => writes.record(record),
      // Reads see every record queued before them.
      listUsage(accountId, limit) {
        writes.flush();
        return durableUsage.listUsage(accountId, limit);
      },
      summarizeUsage(filter, groupBy) {
        writes.flush();
        return durableUsage.summarizeUsage(filter, groupBy);
      },
      listRequests(query) {
        writes.flush();
        return durableUsage.listRequests(query);
      },
      // No flush, on the request path of every budgeted call: a charge still queued belongs to a
      // call whose budget reservation is not released yet, so the budget counts it already
      // (docs/decisions/0166), and a flush would commit on its own for each such call.
      spentByToken(apiKeyId, since, until) {
        return durableUsage.spentByToken(apiKeyId, since, until);
      },
    },
    async close(): Promise<void> {
      writes.flush();
      lease?.release();
      await store.close();
    },
  };
}
