import { randomUUID } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeRoutingStateContract } from '../../routing/routing-state.contract.ts';
import { readiness } from '../../routing/target-health.ts';
import { connectTestRedis, testRedisUrl } from '../../../test/support/connect-test-redis.ts';
import { newRedisClient } from './connect-redis.ts';
import { RedisRoutingState, type RedisRoutingStateOptions } from './redis-routing-state.ts';

const admin = await connectTestRedis('RedisRoutingState');
const runPrefix = `switchyard-test:routing:${randomUUID()}`;
let prefixCount = 0;

function redis(): Redis {
  if (admin === undefined) throw new Error('Redis is not connected');
  return admin;
}

function nextPrefix(): string {
  prefixCount += 1;
  return `${runPrefix}:${prefixCount}`;
}

async function deleteKeysUnder(prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis().scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis().unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** One gateway process's adapter, with connections made as the composition root makes them. */
function openState(
  prefix: string,
  options: Partial<RedisRoutingStateOptions> & { url?: string } = {},
): RedisRoutingState {
  const url = options.url ?? testRedisUrl;
  return new RedisRoutingState(
    newRedisClient(url, { enableOfflineQueue: false }),
    newRedisClient(url, { maxRetriesPerRequest: null, retryStrategy: () => 50 }),
    { keyPrefix: prefix, maxPins: 100, now: () => Date.now(), ...options },
  );
}

/**
 * A TCP relay to Redis standing for the network between a gateway and Redis: it can be cut (every
 * connection dropped, new ones refused), restored, or stalled (bytes held, nothing answered).
 */
async function startRelay(): Promise<{
  url: string;
  cut(): void;
  restore(): void;
  stall(): void;
  close(): Promise<void>;
}> {
  const target = new URL(testRedisUrl);
  const sockets = new Set<Socket>();
  let state: 'open' | 'cut' | 'stalled' = 'open';
  const server: Server = createServer((client) => {
    if (state === 'cut') {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      if (state === 'open') upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `redis://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url,
    cut() {
      state = 'cut';
      dropAll();
    },
    restore() {
      state = 'open';
    },
    stall() {
      state = 'stalled';
    },
    async close() {
      dropAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(admin === undefined)('RedisRoutingState', () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (closing.length > 0) await closing.pop()?.();
  });
  afterAll(async () => {
    await deleteKeysUnder(runPrefix);
    await admin?.quit();
  });

  /** An adapter closed after the test. */
  async function shared(
    prefix: string,
    options: Partial<RedisRoutingStateOptions> & { url?: string } = {},
  ): Promise<RedisRoutingState> {
    const state = openState(prefix, options);
    closing.push(() => state.close());
    await state.whenShared();
    return state;
  }

  describeRoutingStateContract('RedisRoutingState', async ({ maxPins }) => {
    const prefix = nextPrefix();
    const state = openState(prefix, { maxPins });
    await state.whenShared();
    return { state, cleanup: () => deleteKeysUnder(prefix) };
  });

  it("applies another process's events within a second, and its own only once", async () => {
    const prefix = nextPrefix();
    const [first, second] = [await shared(prefix), await shared(prefix)];
    const now = Date.now();

    first.publish({ kind: 'cooldown', target: 'p/m#kA', until: now + 30_000 });
    second.publish({ kind: 'disabled', target: 'p#kB', reason: 'refused', until: now + 60_000 });
    await expect
      .poll(() => second.health('p/m#kA').coolUntil, { timeout: 1_000 })
      .toBe(now + 30_000);
    await expect.poll(() => first.health('p#kB').disabled, { timeout: 1_000 }).toBe('refused');
    expect(readiness(second.health('p/m#kA'), Date.now())).toBe('out');

    // Opened and closed at once here: an echo of the opening applied late would reopen it.
    first.publish({ kind: 'circuit-open', target: 'p/m#kC', until: now + 30_000 });
    first.publish({ kind: 'circuit-closed', target: 'p/m#kC' });
    await expect.poll(() => second.health('p/m#kC').circuitOpens, { timeout: 1_000 }).toBe(1);
    await expect.poll(() => second.health('p/m#kC').circuit, { timeout: 1_000 }).toBe('closed');
    expect(first.health('p/m#kC')).toMatchObject({ circuit: 'closed', circuitOpens: 1 });
    expect(first.health('p/m#kA').cooldowns).toBe(1);

    second.publish({ kind: 'enabled', target: 'p#kB' });
    await expect.poll(() => first.health('p#kB').disabled, { timeout: 1_000 }).toBeUndefined();
  });

  it('lets a process that starts later load the waits still in force, and only those', async () => {
    const prefix = nextPrefix();
    const early = await shared(prefix);
    const now = Date.now();
    early.publish({ kind: 'cooldown', target: 'p/m#kA', until: now + 30_000 });
    early.publish({ kind: 'cooldown', target: 'p/m#kA', until: now + 10_000 });
    early.publish({ kind: 'circuit-open', target: 'p/m#kB', until: now + 20_000 });
    early.publish({ kind: 'disabled', target: 'p#kC', reason: 'quota', until: now + 300_000 });
    early.publish({ kind: 'cooldown', target: 'p/m#kD', until: now - 1 });
    early.publish({ kind: 'circuit-open', target: 'p/m#kE', until: now + 20_000 });
    early.publish({ kind: 'circuit-closed', target: 'p/m#kE' });
    early.publish({ kind: 'cooldown', target: 'p#kF', until: now + 20_000 });
    early.publish({ kind: 'enabled', target: 'p#kF' });
    await sleep(100);

    const late = await shared(prefix);
    expect(late.health('p/m#kA').coolUntil).toBe(now + 30_000);
    expect(late.health('p/m#kB')).toMatchObject({ circuit: 'open', circuitUntil: now + 20_000 });
    expect(late.health('p#kC')).toMatchObject({ disabled: 'quota', disabledUntil: now + 300_000 });
    expect([...late.entries()].map(([id]) => id).sort()).toEqual(['p#kC', 'p/m#kA', 'p/m#kB']);
    // The record lasts as long as the longest wait, not for ever.
    const ttl = await redis().pttl(`${prefix}:health`);
    expect(ttl).toBeGreaterThan(300_000);
    expect(ttl).toBeLessThanOrEqual(300_000 + 60_000 + 1_000);
  });

  it('shares pins under a hashed key that expires with the pin', async () => {
    const prefix = nextPrefix();
    const [first, second] = [await shared(prefix), await shared(prefix)];
    const session = `system prompt ${'x'.repeat(2_000)}`;
    first.pin(session, 'p/m#kA', 60_000);
    await expect.poll(() => second.pinned(session), { timeout: 1_000 }).toBe('p/m#kA');
    // Held locally from then on: the next turn does not ask Redis.
    expect(second.pinnedCount).toBe(1);
    expect(second.pinned(session)).toBe('p/m#kA');

    const keys = await redis().keys(`${prefix}:pin:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]?.length).toBeLessThan(prefix.length + 60);
    const ttl = await redis().pttl(keys[0] ?? '');
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // A pin the other process holds no longer is read again from Redis.
    second.forget();
    first.pin('short', 'p/m#kB', 200);
    await sleep(300);
    expect(await second.pinned('short')).toBeUndefined();
  });

  it("tells the others of an operator's reset and clears what a later process would load", async () => {
    const prefix = nextPrefix();
    const [first, second] = [await shared(prefix), await shared(prefix)];
    first.publish({ kind: 'cooldown', target: 'p/m#kA', until: Date.now() + 30_000 });
    second.pin('session', 'p/m#kA', 60_000);
    await expect
      .poll(() => second.health('p/m#kA').coolUntil, { timeout: 1_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => first.pinned('session'), { timeout: 1_000 }).toBe('p/m#kA');

    first.forget();
    await expect.poll(() => second.pinnedCount, { timeout: 1_000 }).toBe(0);
    expect([...second.entries()]).toEqual([]);
    expect(await second.pinned('session')).toBeUndefined();
    const late = await shared(prefix);
    expect([...late.entries()]).toEqual([]);
  });

  it('ignores messages it cannot read', async () => {
    const prefix = nextPrefix();
    const state = await shared(prefix);
    for (const message of [
      'not json',
      'null',
      '42',
      JSON.stringify({ origin: 'x', event: { kind: 'cooldown', target: 'p/m#kA', until: 'soon' } }),
      JSON.stringify({ origin: 'x', event: { kind: 'explode', target: 'p/m#kA' } }),
    ]) {
      await redis().publish(`${prefix}:events`, message);
    }
    await redis().publish(
      `${prefix}:events`,
      JSON.stringify({ origin: 'x', event: { kind: 'cooldown', target: 'p/m#kB', until: 1 } }),
    );
    await expect.poll(() => state.health('p/m#kB').cooldowns, { timeout: 1_000 }).toBe(1);
    expect([...state.entries()].map(([id]) => id)).toEqual(['p/m#kB']);
  });

  it('answers a pin lookup without Redis once its short wait is over', async () => {
    const relay = await startRelay();
    closing.push(() => relay.close());
    const prefix = nextPrefix();
    const state = await shared(prefix, { url: relay.url, pinLookupMs: 50 });
    const other = await shared(prefix);
    other.pin('session', 'p/m#kA', 60_000);
    await sleep(50);

    relay.stall();
    const startedAt = Date.now();
    expect(await state.pinned('session')).toBeUndefined();
    expect(Date.now() - startedAt).toBeLessThan(500);
  });

  it('keeps routing on its own view while Redis is down, says so once, and shares what it learned once back', async () => {
    const relay = await startRelay();
    closing.push(() => relay.close());
    const prefix = nextPrefix();
    const outages: unknown[] = [];
    let recoveries = 0;
    const state = await shared(prefix, {
      url: relay.url,
      onOutage: (error) => outages.push(error),
      onRecovery: () => (recoveries += 1),
    });
    const other = await shared(prefix);
    state.publish({ kind: 'circuit-open', target: 'p/m#kC', until: Date.now() + 30_000 });
    await expect.poll(() => other.health('p/m#kC').circuit, { timeout: 1_000 }).toBe('open');

    relay.cut();
    await sleep(100);
    const now = Date.now();
    state.publish({ kind: 'circuit-closed', target: 'p/m#kC' });
    state.publish({ kind: 'cooldown', target: 'p/m#kD', until: now - 1 });
    for (let index = 0; index < 20; index += 1) {
      state.publish({ kind: 'cooldown', target: `p/m#k${index}`, until: now + 30_000 });
      state.pin(`session-${index}`, 'p/m#k0', 60_000);
      expect(await state.pinned(`session-${index}`)).toBe('p/m#k0');
      expect(await state.pinned(`unknown-${index}`)).toBeUndefined();
    }
    expect(readiness(state.health('p/m#k3'), now)).toBe('out');
    expect(outages).toHaveLength(1);
    expect(other.health('p/m#k3').coolUntil).toBe(0);

    relay.restore();
    await expect.poll(() => recoveries, { timeout: 5_000 }).toBe(1);
    expect(outages).toHaveLength(1);
    // Recorded and published once back: the others and a later process learn it.
    await expect
      .poll(() => other.health('p/m#k3').coolUntil, { timeout: 1_000 })
      .toBe(now + 30_000);
    await expect.poll(() => other.health('p/m#kC').circuit, { timeout: 1_000 }).toBe('closed');
    const late = await shared(prefix);
    expect(late.health('p/m#k19').coolUntil).toBe(now + 30_000);
    expect(late.health('p/m#kC').circuit).toBe('closed');
    expect(late.health('p/m#kD').cooldowns).toBe(0);
  }, 15_000);
});

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
