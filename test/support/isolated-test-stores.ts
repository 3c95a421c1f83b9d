import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

export const postgresConnectionString =
  process.env.SWITCHYARD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why PostgreSQL cannot be used, or undefined when it answers. */
export async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({
    connectionString: postgresConnectionString,
    connectionTimeoutMillis: 3_000,
  });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresConnectionString });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A schema name no other suite uses. */
export function uniqueSchema(): string {
  return `switchyard_test_${randomUUID().replaceAll('-', '')}`;
}

/**
 * A PostgreSQL store in a schema of its own, dropped when the store closes. Several pooled
 * connections make the concurrent-hold contracts race for real.
 */
export async function openIsolatedPostgresStore(): Promise<Store> {
  const schema = uniqueSchema();
  let store: Store;
  try {
    store = await openPostgresStore({
      connectionString: postgresConnectionString,
      schema,
      maxConnections: 8,
    });
  } catch (error) {
    await dropSchema(schema);
    throw error;
  }
  return {
    ...store,
    async close(): Promise<void> {
      try {
        await store.close();
      } finally {
        await dropSchema(schema);
      }
    },
  };
}

/** A SQLite store in a fresh temporary folder that goes away when the store closes. */
export async function openTemporarySqliteStore(owner = false): Promise<Store> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-sqlite-'));
  const store = await openSqliteStore({ path: path.join(folder, 'store.db'), owner });
  return {
    ...store,
    async close(): Promise<void> {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
