import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors as undiciErrors } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { UpstreamPools, type UpstreamTarget } from './upstream-pool.ts';

/** docs/operations.md promises the first-byte timeout fires within this of its setting. */
const TOLERANCE_MS = 350;

describe('UpstreamPools', () => {
  let server: Server;
  let baseUrl: string;
  let inFlight = 0;
  let mostInFlight = 0;
  let connections = 0;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    // `/slow/<ms>` answers after that long; `/hold` answers when the test lets it; `/stall`
    // sends its headers and then nothing.
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      response.on('close', () => (inFlight -= 1));
      const slow = /^\/slow\/(\d+)$/.exec(request.url ?? '');
      if (slow) setTimeout(() => response.end('{}'), Number(slow[1]));
      else if (request.url === '/hold') held.push(response);
      else if (request.url === '/stall') response.writeHead(200).flushHeaders();
      else response.end('{}');
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const target = (overrides: Partial<UpstreamTarget>): UpstreamTarget => ({
    baseUrl,
    connectTimeoutMs: 1_000,
    firstByteTimeoutMs: 5_000,
    idleTimeoutMs: 5_000,
    maxConnections: 8,
    ...overrides,
  });
  const send = (
    pools: UpstreamPools,
    to: UpstreamTarget,
    path: string,
    signal = new AbortHandle(),
  ) => pools.send(to, { path, headers: {}, body: '{}', signal });

  it("keeps each provider's own first-byte timeout when two share a base URL", async () => {
    const pools = new UpstreamPools();
    const quick = target({ firstByteTimeoutMs: 300 });
    const patient = target({ firstByteTimeoutMs: 3_000 });
    try {
      const [impatient, waited] = await Promise.allSettled([
        send(pools, quick, '/slow/800'),
        send(pools, patient, '/slow/800'),
      ]);
      expect(impatient.status).toBe('rejected');
      expect((impatient as PromiseRejectedResult).reason).toBeInstanceOf(
        undiciErrors.HeadersTimeoutError,
      );
      expect(waited.status).toBe('fulfilled');
      expect(pools.size).toBe(2);
      // The same provider again reuses its pool.
      await (await send(pools, patient, '/')).body.text();
      expect(pools.size).toBe(2);
    } finally {
      await pools.close();
    }
  });

  it("keeps each provider's own connection limit when two share a base URL", async () => {
    const pools = new UpstreamPools();
    const narrow = target({ maxConnections: 1 });
    const wide = target({ maxConnections: 4 });
    mostInFlight = 0;
    try {
      const sent = [
        send(pools, narrow, '/hold'),
        send(pools, narrow, '/hold'),
        send(pools, wide, '/hold'),
        send(pools, wide, '/hold'),
      ];
      await new Promise((resolve) => setTimeout(resolve, 300));
      // One of the narrow provider's two requests waits for its only connection.
      expect(held).toHaveLength(3);
      while (held.length > 0) held.shift()?.end('{}');
      await new Promise((resolve) => setTimeout(resolve, 300));
      while (held.length > 0) held.shift()?.end('{}');
      for (const response of await Promise.all(sent)) await response.body.text();
      expect(mostInFlight).toBe(3);
    } finally {
      await pools.close();
    }
  });

  it('fires the first-byte timeout within the documented tolerance, also past one second', async () => {
    const pools = new UpstreamPools();
    try {
      for (const firstByteTimeoutMs of [400, 1_500]) {
        const startedAt = performance.now();
        await expect(
          send(pools, target({ firstByteTimeoutMs }), `/slow/${firstByteTimeoutMs + 3_000}`),
        ).rejects.toBeInstanceOf(undiciErrors.HeadersTimeoutError);
        const elapsed = performance.now() - startedAt;
        expect(elapsed).toBeGreaterThanOrEqual(firstByteTimeoutMs - 5);
        expect(elapsed).toBeLessThan(firstByteTimeoutMs + TOLERANCE_MS);
      }
    } finally {
      await pools.close();
    }
  });

  it("stops the upstream body when the caller's signal aborts after the headers", async () => {
    const pools = new UpstreamPools();
    const signal = new AbortHandle();
    try {
      const response = await send(pools, target({}), '/stall', signal);
      expect(response.statusCode).toBe(200);
      const reading = response.body.text();
      signal.abort();
      await expect(reading).rejects.toThrow();
    } finally {
      await pools.close();
    }
  });

  it('answers a caller that aborted before the first byte with its abort, not a timeout', async () => {
    const pools = new UpstreamPools();
    const signal = new AbortHandle();
    try {
      const sent = send(pools, target({ firstByteTimeoutMs: 2_000 }), '/slow/1500', signal);
      setTimeout(() => signal.abort(), 50);
      const error: unknown = await sent.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(undiciErrors.RequestAbortedError);
    } finally {
      await pools.close();
    }
  });

  it('hands a pool on across a reload when the settings match, and lets a retired one finish its request', async () => {
    const pools = new UpstreamPools();
    const kept = target({});
    const changed = target({ maxConnections: 4 });
    try {
      await (await send(pools, kept, '/')).body.text();
      const heldBefore = held.length;
      const holding = send(pools, changed, '/hold');
      while (held.length === heldBefore) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(pools.size).toBe(2);
      const connectionsBefore = connections;

      const keptAgain = target({});
      const changedAgain = target({ maxConnections: 2 });
      pools.carryOver({ kept, changed }, { kept: keptAgain, changed: changedAgain });
      // The kept provider's new object reuses the warm connection; the changed one is retiring.
      expect(pools.size).toBe(1);
      await (await send(pools, keptAgain, '/')).body.text();
      expect(connections).toBe(connectionsBefore);

      // The request in flight on the retired pool still gets its whole answer.
      held.at(-1)?.end('{"done":true}');
      expect(await (await holding).body.text()).toBe('{"done":true}');
      await (await send(pools, changedAgain, '/')).body.text();
      expect(pools.size).toBe(2);
    } finally {
      await pools.close();
    }
  });
});
