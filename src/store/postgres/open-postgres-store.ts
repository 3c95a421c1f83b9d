import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

import { createKyselyStore } from '../kysely/create-kysely-store.ts';
import type { Database } from '../kysely/kysely-database.ts';
import { migrateStoreToLatest } from '../kysely/migrate-store-to-latest.ts';
import type { Store } from '../store.ts';
import { postgresStoreTypes } from './parse-postgres-int8.ts';

export interface PostgresStoreOptions {
  connectionString: string;
  /**
   * Schema for every table, set as each connection's search_path and created when missing.
   * Lets tests (or several deployments sharing a database) keep to themselves.
   */
  schema?: string;
  /**
   * How long a request waits for a new connection before failing (docs/decisions/0021: a server
   * that does not answer must give 503, not hang); node-postgres would wait for ever.
   */
  connectTimeoutMilliseconds?: number;
  /** Pool size; node-postgres defaults to 10. */
  maxConnections?: number;
  /**
   * An idle pooled connection that fails (server restart, network cut) is dropped from the pool
   * and reported here; without a listener node-postgres would crash the process.
   */
  onIdleConnectionError?: (error: Error) => void;
}

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** The scale-out store (docs/architecture.md): several gateway processes may share it. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { schema } = options;
  if (schema !== undefined && !schemaPattern.test(schema)) {
    // The name goes into a startup parameter and DDL, where it cannot be a bound parameter.
    throw new RangeError(`schema must match ${schemaPattern}, got ${JSON.stringify(schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    types: postgresStoreTypes,
    connectionTimeoutMillis: options.connectTimeoutMilliseconds ?? 5_000,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
  });
  const onConnectionError = options.onIdleConnectionError ?? (() => {});
  pool.on('error', onConnectionError);
  // A connection cut while checked out (between two queries of a transaction, or just before its
  // release) emits 'error' on its client, which the pool does not listen to then: without this
  // listener a PostgreSQL restart would crash the process instead of failing those requests.
  pool.on('connect', (client) => client.on('error', onConnectionError));

  const database = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema !== undefined) {
      await pool.query(`create schema if not exists "${schema}"`);
    }
    // Kysely looks for its bookkeeping tables in every schema unless told which one.
    const { rows } = await pool.query<{ schema: string | null }>(
      'select current_schema() as schema',
    );
    const currentSchema = rows[0]?.schema;
    if (currentSchema === null || currentSchema === undefined) {
      throw new Error('PostgreSQL search_path names no existing schema to create tables in');
    }
    await migrateStoreToLatest(database, 'postgres', { migrationTableSchema: currentSchema });
  } catch (error) {
    await database.destroy();
    throw error;
  }
  return createKyselyStore(database, 'postgres');
}
