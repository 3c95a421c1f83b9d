import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';

import { OperatorService } from '../../src/operator/operator-service.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startFakeImageUpstream, type FakeImageUpstream } from '../images/fake-image-upstream.ts';
import { testRedisUrl } from '../support/connect-test-redis.ts';
import { freePort } from '../support/free-port.ts';
import { postgresConnectionString } from '../support/isolated-test-stores.ts';
import { buildGatewayCopy, GatewayProcess } from './gateway-process.ts';

/** The example docs/deployment.md walks through; the suite starts this very file. */
export const deploymentConfigPath = fileURLToPath(
  new URL('../../deploy/switchyard.config.json', import.meta.url),
);

/** The upstream keys of the example's environment file, as the fake upstream sees them. */
export const upstreamKeys = {
  anthropic: 'sk-ant-scale-out-first',
  anthropicSecond: 'sk-ant-scale-out-second',
  openai: 'sk-openai-scale-out',
};

export interface ScaleOutSet {
  gateways: GatewayProcess[];
  upstream: FakeUpstream;
  images: FakeImageUpstream;
  /** The same PostgreSQL database the gateways use, for the operator and the assertions. */
  store: Store;
  /** The database made for the run. */
  databaseName: string;
  /** Runs statements on the run's database, as its owner. */
  runSql(text: string): Promise<void>;
  /** The usage table's size on disk with its indexes, and its rows. */
  usageTableSize(): Promise<{ bytes: number; rows: number }>;
  operator: OperatorService;
  redis: Redis;
  redisKeyPrefix: string;
  close(): Promise<void>;
}

/**
 * The deployment's configuration with only the addresses a test machine differs in: the
 * upstreams (the fakes of this process), the S3 endpoint (s3rver) and the Redis key prefix (one
 * per run, on a shared Redis). Everything else is the file as docs/deployment.md shows it.
 */
export function localizeDeploymentConfig(
  deployment: Record<string, unknown>,
  addresses: { upstream: string; images: string; s3: string; redisKeyPrefix: string },
): Record<string, unknown> {
  const config = structuredClone(deployment) as {
    providers: Record<string, { baseUrl: string }>;
    images: { providers: Array<{ baseUrl: string }> };
    storage: { blobStore: { endpoint: string } };
    store: { redisKeyPrefix: string };
  };
  for (const provider of Object.values(config.providers)) provider.baseUrl = addresses.upstream;
  for (const provider of config.images.providers) provider.baseUrl = addresses.images;
  config.storage.blobStore.endpoint = addresses.s3;
  config.store.redisKeyPrefix = addresses.redisKeyPrefix;
  return config as unknown as Record<string, unknown>;
}

/**
 * The same configuration on the embedded store, for comparing one process on SQLite against
 * one on PostgreSQL (`npm run bench:scale-out -- --store=sqlite`): limits and routing state then
 * stay in the process.
 */
function onEmbeddedStore(config: Record<string, unknown>): Record<string, unknown> {
  return { ...config, store: { backend: 'sqlite' } };
}

/**
 * Three gateway processes as docs/deployment.md runs them, on a PostgreSQL database made for the
 * run (dropped at the end), this machine's Redis under a key prefix of the run, and s3rver for
 * the blobs. They start together on the empty database: migrations run once, under their lock.
 */
export async function startScaleOutSet(
  count = 3,
  options: { store?: 'postgres' | 'sqlite' } = {},
): Promise<ScaleOutSet> {
  const embedded = options.store === 'sqlite';
  if (embedded && count !== 1) throw new Error('one process per embedded store');
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-scale-out-'));
  const database = `switchyard_scale_out_${randomUUID().replaceAll('-', '')}`;
  const adminUrl = new URL(postgresConnectionString);
  const databaseUrl = new URL(postgresConnectionString);
  databaseUrl.pathname = `/${database}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  await admin.end();

  const upstream = await startFakeUpstream();
  const images = await startFakeImageUpstream();
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: path.join(folder, 's3'),
    configureBuckets: [{ name: 'switchyard-files' }],
  });
  const s3Address = await s3.run();
  const redisKeyPrefix = `switchyard-test:scale-out:${randomUUID()}`;
  const deployment = JSON.parse(await readFile(deploymentConfigPath, 'utf8')) as Record<
    string,
    unknown
  >;
  const configPath = path.join(folder, 'switchyard.config.json');
  await writeFile(
    configPath,
    JSON.stringify(
      (embedded ? onEmbeddedStore : (config: Record<string, unknown>) => config)(
        localizeDeploymentConfig(deployment, {
          upstream: upstream.url,
          images: images.url,
          s3: `http://127.0.0.1:${s3Address.port}`,
          redisKeyPrefix,
        }),
      ),
    ),
  );

  // What docs/deployment.md's environment file holds, with this machine's values.
  const environment = {
    SWITCHYARD_CONFIG: configPath,
    ...(embedded
      ? {}
      : { SWITCHYARD_DATABASE_URL: databaseUrl.toString(), SWITCHYARD_REDIS_URL: testRedisUrl }),
    SWITCHYARD_SEAL_KEY: 'scale-out-suite-seal-key-0123456789abcdef',
    SWITCHYARD_ADMIN_TOKEN: 'scale-out-suite-admin-secret',
    SWITCHYARD_LOG_LEVEL: 'warn',
    ANTHROPIC_API_KEY: upstreamKeys.anthropic,
    ANTHROPIC_API_KEY_2: upstreamKeys.anthropicSecond,
    OPENAI_API_KEY: upstreamKeys.openai,
    BFL_API_KEY: 'bfl-scale-out-key',
    SWITCHYARD_S3_ACCESS_KEY_ID: 'S3RVER',
    SWITCHYARD_S3_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const build = await buildGatewayCopy();
  const gateways: GatewayProcess[] = [];
  for (let index = 0; index < count; index += 1) {
    gateways.push(
      new GatewayProcess(build.entry, await freePort(), {
        ...environment,
        SWITCHYARD_DATA_DIR: path.join(folder, `gateway-${index}`),
      }),
    );
  }
  const redis = new Redis(testRedisUrl);
  let store: Store | undefined;
  const close = async () => {
    await Promise.all(gateways.map((gateway) => (gateway.running ? gateway.kill() : undefined)));
    await store?.close();
    await upstream.close();
    await images.close();
    await s3.close();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisKeyPrefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
    const dropper = new pg.Client({ connectionString: adminUrl.toString() });
    await dropper.connect();
    await dropper.query(`drop database if exists "${database}" with (force)`);
    await dropper.end();
    await rm(folder, { recursive: true, force: true });
    await build.remove();
  };
  try {
    await Promise.all(gateways.map((gateway) => gateway.start()));
    store = embedded
      ? // Beside the running gateway, as the operator CLI opens it (docs/decisions/0014).
        await openSqliteStore({
          path: path.join(folder, 'gateway-0', 'switchyard.sqlite'),
          owner: false,
        })
      : await openPostgresStore({ connectionString: databaseUrl.toString() });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    gateways,
    upstream,
    images,
    store,
    databaseName: database,
    async runSql(text) {
      const client = new pg.Client({ connectionString: databaseUrl.toString() });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    },
    async usageTableSize() {
      if (embedded) return { bytes: Number.NaN, rows: Number.NaN };
      const client = new pg.Client({ connectionString: databaseUrl.toString() });
      await client.connect();
      try {
        const { rows } = await client.query<{ bytes: string; rows: string }>(
          `select pg_total_relation_size('usage_records')::text as bytes,
             (select count(*) from usage_records)::text as rows`,
        );
        return { bytes: Number(rows[0]?.bytes), rows: Number(rows[0]?.rows) };
      } finally {
        await client.end();
      }
    },
    operator: new OperatorService(store),
    redis,
    redisKeyPrefix,
    close,
  };
}
