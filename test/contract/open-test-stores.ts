import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

export const postgresUrl =
  process.env.SWITCHYARD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A store on a fresh temporary SQLite file, removed when the store closes. */
export async function openTemporarySqliteStore(): Promise<Store> {
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-assets-'));
  const store = await openSqliteStore({ path: path.join(folder, 'store.db'), owner: true });
  return {
    ...store,
    async close() {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL store in a schema of its own, dropped when the store closes. */
export async function openIsolatedPostgresStore(): Promise<Store> {
  const schema = `switchyard_test_${randomUUID().replaceAll('-', '')}`;
  const store = await openPostgresStore({
    connectionString: postgresUrl,
    schema,
    maxConnections: 8,
  }).catch(async (error: unknown) => {
    await dropSchema(schema);
    throw error;
  });
  return {
    ...store,
    async close() {
      try {
        await store.close();
      } finally {
        await dropSchema(schema);
      }
    },
  };
}
