import { randomUUID } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { composeGateway } from '../../src/compose.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { DependencyUnreachableError } from '../../src/store/wait-for-dependency.ts';
import { startFakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel } from '../support/test-gateway.ts';

/** docs/decisions/0021: what a request, readiness and start-up do when PostgreSQL or Redis is down. */
const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A TCP relay that can be cut, standing for a store that goes down while the gateway runs. */
async function startCuttableRelay(target: string): Promise<{ url: string; cut(): Promise<void> }> {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(url.port), url.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(target);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString(),
    async cut() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const chatBody = { model: 'gpt', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 };

describe('dependency outages', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  it('gives up at start-up on an unreachable PostgreSQL with one line naming its address', async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const config = parseConfig({
      dataDir: '/nonexistent-switchyard-test',
      store: {
        backend: 'postgres',
        postgresUrl: `postgres://gateway:t0ps3cret@127.0.0.1:${port}/ledger`,
        connectWaitSeconds: 1,
      },
    });
    const startedAt = Date.now();
    const error: unknown = await composeGateway(config, {
      env: { SWITCHYARD_SEAL_KEY: 'a'.repeat(44) },
      warn: (message) => warnings.push(message),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnreachableError);
    expect((error as Error).message).toContain(`PostgreSQL at 127.0.0.1:${port}/ledger`);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`127.0.0.1:${port}/ledger is unreachable (ECONNREFUSED)`);
    for (const line of [...warnings, (error as Error).message]) {
      expect(line).not.toContain('t0ps3cret');
      expect(line).not.toContain('\n');
    }
    // It retried for the configured second, not for ever.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it('gives up at start-up on an unreachable Redis when limits need it', async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const error: unknown = await startTestGateway(
      {
        store: { redisUrl: `redis://:r3dispass@127.0.0.1:${port}`, connectWaitSeconds: 1 },
        limits: { token: { concurrentRequests: 4 } },
      },
      { warn: (message) => warnings.push(message) },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnreachableError);
    expect((error as Error).message).toContain(`Redis at 127.0.0.1:${port} is unreachable`);
    expect(`${warnings.join('')}${(error as Error).message}`).not.toContain('r3dispass');
  });

  it('neither waits for nor reports Redis when no limit needs it', async () => {
    const port = await closedPort();
    const gateway = await startTestGateway({
      store: { redisUrl: `redis://127.0.0.1:${port}`, connectWaitSeconds: 30 },
    });
    cleanups.push(() => gateway.close());
    const ready = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });

  it('routes without the shared routing state while Redis does not answer, and says so once', async () => {
    // docs/decisions/0143: routing state is shared through Redis when it answers, never waited for.
    const port = await closedPort();
    const upstream = await startFakeUpstream();
    cleanups.push(() => upstream.close());
    const gateway = await startTestGateway({
      providers: { chat: { kind: 'openai-chat', baseUrl: upstream.url } },
      models: [testModel('gpt', 'chat')],
      store: { redisUrl: `redis://:r3dispass@127.0.0.1:${port}`, connectWaitSeconds: 30 },
    });
    cleanups.push(() => gateway.close());
    const { token } = await gateway.createToken({ credits: 1_000_000 });
    for (let turn = 0; turn < 3; turn += 1) {
      const answer = await gateway.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${token}` },
        payload: chatBody,
      });
      expect(answer.statusCode).toBe(200);
    }
    expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const warnings = gateway.logs.filter((line) => line.includes('Redis does not answer'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"level":40');
    expect(gateway.logs.join('\n')).not.toContain('r3dispass');
  });

  it('answers 503 not_ready with retry-after when Redis goes down, and takes no money', async () => {
    const relay = await startCuttableRelay(REDIS_URL);
    cleanups.push(() => relay.cut());
    const gateway = await startTestGateway({
      providers: { chat: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9' } },
      models: [testModel('gpt', 'chat')],
      store: { redisUrl: relay.url, connectWaitSeconds: 5 },
      limits: { token: { concurrentRequests: 4 } },
    });
    cleanups.push(() => gateway.close());
    const { token, accountId } = await gateway.createToken({ credits: 1_000_000 });
    expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    await relay.cut();
    const answer = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
      payload: chatBody,
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.json().error.code).toBe('not_ready');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: 1_000_000,
      held: 0,
    });
    expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    expect(gateway.logs.join('\n')).not.toMatch(/"level":50/);
  }, 30_000);

  it('answers 503 not_ready with retry-after when PostgreSQL goes down', async () => {
    const schema = `outage_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const relay = await startCuttableRelay(POSTGRES_URL);
    cleanups.push(() => relay.cut());
    const store = await openPostgresStore({
      connectionString: relay.url,
      schema,
      connectTimeoutMilliseconds: 1_000,
    });
    cleanups.push(async () => {
      await store.close();
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    });
    const gateway = await startTestGateway(
      {
        providers: { chat: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9' } },
        models: [testModel('gpt', 'chat')],
      },
      { store },
    );
    cleanups.push(() => gateway.close());
    const used = await gateway.createToken({ credits: 1_000_000 });
    const unused = await gateway.createToken({ credits: 1_000_000 });
    // The first token is in the gateway's token cache: its request gets as far as the hold.
    const models = await gateway.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${used.token}` },
    });
    expect(models.statusCode).toBe(200);

    await relay.cut();
    for (const [token, request] of [
      [used.token, { method: 'POST' as const, url: '/v1/chat/completions', payload: chatBody }],
      [unused.token, { method: 'GET' as const, url: '/v1/models' }],
    ] as const) {
      const answer = await gateway.app.inject({
        ...request,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error.code).toBe('not_ready');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
  }, 30_000);
});
