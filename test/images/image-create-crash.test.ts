import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';

import { OperatorService } from '../../src/operator/operator-service.ts';
import { grantFundedToken } from '../support/grant-funded-token.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  dropSchema,
  postgresConnectionString,
  probePostgres,
  uniqueSchema,
} from '../support/isolated-test-stores.ts';
import { spawnGatewayChild, type GatewayChild } from '../support/spawn-gateway-child.ts';
import { startFakeImageUpstream, type FakeImageUpstream } from './fake-image-upstream.ts';
import { bflPrice, imagesConfig } from './image-test-bed.ts';

const credits = 10_000_000;
const unreachableReason = await probePostgres();

/** A point inside a create call where the gateway is killed: an upstream request in flight. */
interface KillPoint {
  name: string;
  model: 'picture-sync' | 'picture-job';
  stallOn(method: string, path: string): boolean;
  /** How the job ends once a later process has dealt with it, and what it is charged. */
  ends: { status: 'succeeded' | 'failed'; charged: number };
}

const killPoints: KillPoint[] = [
  {
    // The images never reached the gateway: the resumed job fails uncharged, never resubmitted.
    name: 'a synchronous generation in flight',
    model: 'picture-sync',
    stallOn: (method, url) => method === 'POST' && url === '/v1/images/generations',
    ends: { status: 'failed', charged: 0 },
  },
  {
    name: 'a job-style submit in flight',
    model: 'picture-job',
    stallOn: (method, url) => method === 'POST' && url !== '/v1/images/generations',
    ends: { status: 'failed', charged: 0 },
  },
  {
    // The upstream job id is stored: the next process polls it on and charges it once.
    name: 'a poll of the upstream job in flight',
    model: 'picture-job',
    stallOn: (method, url) => method === 'GET' && url === '/v1/get_result',
    ends: { status: 'succeeded', charged: bflPrice },
  },
  {
    name: 'the download of the finished image in flight',
    model: 'picture-job',
    stallOn: (method, url) => method === 'GET' && url.startsWith('/samples/'),
    ends: { status: 'succeeded', charged: bflPrice },
  },
];

/** Where the gateways keep their data, and the test's own view of it. */
interface Engine {
  storeConfig: Record<string, unknown>;
  /** Opened beside the gateway, as the operator CLI opens it. */
  store: Store;
  countJobs(accountId: string): Promise<number>;
  close(): Promise<void>;
}

async function sqliteEngine(folder: string): Promise<Engine> {
  const file = path.join(folder, 'switchyard.sqlite');
  const store = await openSqliteStore({ path: file, owner: false });
  return {
    storeConfig: { backend: 'sqlite' },
    store,
    async countJobs(accountId) {
      const database = new BetterSqlite3(file, { readonly: true });
      try {
        const row = database
          .prepare('select count(*) as jobs from image_jobs where account_id = ?')
          .get(accountId) as { jobs: number };
        return row.jobs;
      } finally {
        database.close();
      }
    },
    close: () => store.close(),
  };
}

async function postgresEngine(): Promise<Engine> {
  const schema = uniqueSchema();
  const store = await openPostgresStore({ connectionString: postgresConnectionString, schema });
  const separator = postgresConnectionString.includes('?') ? '&' : '?';
  const postgresUrl = `${postgresConnectionString}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    storeConfig: { backend: 'postgres', postgresUrl },
    store,
    async countJobs(accountId) {
      const client = new pg.Client({ connectionString: postgresConnectionString });
      await client.connect();
      try {
        const result = await client.query<{ jobs: string }>(
          `select count(*) as jobs from "${schema}".image_jobs where account_id = $1`,
          [accountId],
        );
        return Number(result.rows[0]?.jobs);
      } finally {
        await client.end();
      }
    },
    async close() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

async function post(
  gateway: GatewayChild,
  token: string,
  key: string,
  model: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> {
  const response = await request(`${gateway.url}/v1/images/generations`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({ model, prompt: `kill test ${key}`, source: 'credits' }),
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (await response.body.json()) as Record<string, unknown>,
  };
}

/** The retry a client makes: while the key is still claimed, it waits what retry-after says. */
async function retryUntilAnswered(
  gateway: GatewayChild,
  token: string,
  key: string,
  model: string,
): Promise<{ status: number; body: Record<string, unknown>; waitedSeconds: number }> {
  let waitedSeconds = 0;
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const answer = await post(gateway, token, key, model);
    if (answer.status !== 409) return { ...answer, waitedSeconds };
    expect(answer.body).toMatchObject({ error: { code: 'idempotency_in_progress' } });
    const retryAfter = Number(answer.headers['retry-after']);
    // The claim of the killed process lapses 15 s after its last heartbeat at most.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15);
    waitedSeconds += retryAfter;
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
  throw new Error('the key stayed claimed');
}

async function pollUntilFinished(
  gateway: GatewayChild,
  token: string,
  jobId: string,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const response = await request(`${gateway.url}/v1/images/generations/${jobId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.body.json()) as Record<string, unknown>;
    if (body.status !== 'queued' && body.status !== 'running') return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

/**
 * kill -9 inside `POST /v1/images/generations` at each point, then the client's retry with the
 * same key on the next process: one job, one upstream submit, at most one charge, and the retry
 * answers that job (docs/decisions/0105, 0107).
 */
async function checkKillPoints(engine: Engine, fake: FakeImageUpstream, folder: string) {
  const config = {
    dataDir: folder,
    store: engine.storeConfig,
    images: imagesConfig(fake.url, { syncWaitMs: 10_000, leaseSeconds: 1 }),
  };
  // Every process of one PostgreSQL store seals compaction items with the same secret.
  const env = {
    IMAGE_KEY: 'image-upstream-key',
    SWITCHYARD_SEAL_KEY: 'crash-test-seal-secret-0123456789abcdef',
  };
  const operator = new OperatorService(engine.store);
  let gateway = await spawnGatewayChild(config, env);
  try {
    for (const point of killPoints) {
      const { accountId, token } = await grantFundedToken(operator, {
        name: point.name,
        credits,
        permissions: ['image:create'],
      });
      const key = `crash-${point.model}-${killPoints.indexOf(point)}-${Date.now()}`;
      const submitsBefore = fake.submits(point.model === 'picture-sync' ? 'openai' : 'bfl');

      fake.stall = point.stallOn;
      const stalled = new Promise<void>((resolve) => (fake.onStall = resolve));
      const cut = post(gateway, token, key, point.model).catch(() => undefined);
      await stalled;
      await gateway.kill();
      await cut;
      fake.stall = undefined;
      fake.onStall = undefined;
      gateway = await spawnGatewayChild(config, env);

      const retry = await retryUntilAnswered(gateway, token, key, point.model);
      expect([200, 202], `${point.name}: ${JSON.stringify(retry.body)}`).toContain(retry.status);
      const jobId = retry.body.id as string;
      expect(jobId).toMatch(/^imggen_/);
      const finished = await pollUntilFinished(gateway, token, jobId);
      expect(finished.status, point.name).toBe(point.ends.status);
      // Once more: still that job, nothing new made.
      expect((await post(gateway, token, key, point.model)).body.id).toBe(jobId);

      expect(await engine.countJobs(accountId), point.name).toBe(1);
      const submits = fake.submits(point.model === 'picture-sync' ? 'openai' : 'bfl');
      expect(submits - submitsBefore, point.name).toBe(1);
      expect(await engine.store.ledger.getBalance(accountId), point.name).toEqual({
        balance: credits - point.ends.charged,
        held: 0,
        available: credits - point.ends.charged,
      });
    }
  } finally {
    await gateway.kill();
  }
}

describe('a gateway killed inside an image create call (kill -9), then the same key again', () => {
  it('on SQLite: one job, one submit, at most one charge, at every kill point', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-crash-'));
    const fake = await startFakeImageUpstream();
    const engine = await sqliteEngine(folder);
    try {
      await checkKillPoints(engine, fake, folder);
    } finally {
      await engine.close();
      await fake.close();
      await rm(folder, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(unreachableReason !== undefined)(
    'on PostgreSQL: the same, the dead claim freed within its lease',
    async () => {
      const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-crash-'));
      const fake = await startFakeImageUpstream();
      const engine = await postgresEngine();
      try {
        await checkKillPoints(engine, fake, folder);
      } finally {
        await engine.close();
        await fake.close();
        await rm(folder, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
