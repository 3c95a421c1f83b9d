import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectTestRedis } from '../../../test/support/connect-test-redis.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRateLimiterContract } from '../../limits/rate-limiter.contract.ts';
import type { RateLimitDecision, RateLimiter, RateLimitScope } from '../../limits/rate-limiter.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

const T = 1_700_000_000_000;

const client = await connectTestRedis('RedisRateLimiter');
const runPrefix = `switchyard-test:rate-limiter:${randomUUID()}`;
let prefixCount = 0;

function redis(): Redis {
  if (client === undefined) throw new Error('Redis is not connected');
  return client;
}

function nextPrefix(): string {
  prefixCount += 1;
  return `${runPrefix}:${prefixCount}`;
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis().scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

async function deleteKeysUnder(prefix: string): Promise<void> {
  const keys = await keysUnder(prefix);
  if (keys.length > 0) await redis().unlink(...keys);
}

function countAdmitted(decisions: RateLimitDecision[]): number {
  return decisions.filter((decision) => decision.ok).length;
}

function acquireFrom(limiters: RateLimiter[], times: number, scope: RateLimitScope) {
  return Promise.all(
    Array.from({ length: times }).flatMap(() =>
      limiters.map((limiter) => limiter.acquire({ scopes: [scope], estimatedTokens: 1, now: T })),
    ),
  );
}

describe.skipIf(client === undefined)('RedisRateLimiter', () => {
  afterAll(async () => {
    await deleteKeysUnder(runPrefix);
    await client?.quit();
  });

  describeRateLimiterContract('RedisRateLimiter', async (options) => {
    const prefix = nextPrefix();
    return {
      limiter: new RedisRateLimiter(redis(), prefix, options),
      cleanup: () => deleteKeysUnder(prefix),
    };
  });

  describe('across gateway processes', () => {
    const withTwoInstances = async (
      test: (first: RateLimiter, second: RateLimiter) => Promise<void>,
    ) => {
      const prefix = nextPrefix();
      // A second connection stands for a second gateway process.
      const otherClient = redis().duplicate();
      try {
        await test(
          new RedisRateLimiter(redis(), prefix),
          new RedisRateLimiter(otherClient, prefix),
        );
      } finally {
        await otherClient.quit();
        await deleteKeysUnder(prefix);
      }
    };

    it('shares concurrency: 2 instances × 10 acquires at a limit of 5 admit exactly 5', () =>
      withTwoInstances(async (first, second) => {
        const scope = { key: 'account:a', concurrentRequests: 5 };
        const decisions = await acquireFrom([first, second], 10, scope);
        expect(countAdmitted(decisions)).toBe(5);

        // A lease taken through one instance is released through the other, once.
        const lease = decisions.find((decision) => decision.ok)?.lease;
        if (lease === undefined) throw new Error('no lease');
        expect(await second.release(lease, { actualTokens: 1, now: T + 1 })).toBe(true);
        expect(await first.release(lease, { actualTokens: 1, now: T + 2 })).toBe(false);
        expect(countAdmitted(await acquireFrom([first, second], 1, scope))).toBe(1);
      }));

    it("gives a dead process's concurrency slots back within the lease TTL, not before", async () => {
      // 4 streams held by a process killed with -9 locked the token out for 601 s.
      const prefix = nextPrefix();
      const ttl = 1_000;
      const options = { leaseTtlMs: ttl, heartbeatMs: 150 };
      const otherClient = redis().duplicate();
      const dying = new RedisRateLimiter(otherClient, prefix, options);
      const survivor = new RedisRateLimiter(redis(), prefix, options);
      const scope = { key: 'token:a', concurrentRequests: 4 };
      const acquireNow = (limiter: RateLimiter) =>
        limiter.acquire({ scopes: [scope], estimatedTokens: 0, now: Date.now() });
      try {
        for (let index = 0; index < 4; index += 1) expect((await acquireNow(dying)).ok).toBe(true);
        // Held past twice the TTL: the heartbeat keeps the slots of requests still running.
        await new Promise((resolve) => setTimeout(resolve, 2 * ttl));
        const refusal = await acquireNow(survivor);
        expect(refusal).toMatchObject({ ok: false, limit: 'concurrency', retryAfterSeconds: 1 });

        dying.close(); // its heartbeat stops, as when the process is killed
        const diedAt = Date.now();
        let decision = await acquireNow(survivor);
        while (!decision.ok && Date.now() - diedAt < 5 * ttl) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          decision = await acquireNow(survivor);
        }
        expect(decision.ok).toBe(true);
        expect(Date.now() - diedAt).toBeLessThanOrEqual(ttl + 200);
        survivor.close();
      } finally {
        dying.close();
        survivor.close();
        await otherClient.quit();
        await deleteKeysUnder(prefix);
      }
    });

    it('shares requests per minute: 2 instances × 25 acquires at a limit of 10 admit exactly 10', () =>
      withTwoInstances(async (first, second) => {
        const scope = { key: 'token:a', requestsPerMinute: 10 };
        expect(countAdmitted(await acquireFrom([first, second], 25, scope))).toBe(10);
      }));

    it('keeps limiters with different prefixes apart', async () => {
      const scope = { key: 'token:a', concurrentRequests: 1 };
      const prefixes = [nextPrefix(), nextPrefix()];
      const limiters = prefixes.map((prefix) => new RedisRateLimiter(redis(), prefix));
      try {
        expect(countAdmitted(await acquireFrom(limiters, 1, scope))).toBe(2);
      } finally {
        await Promise.all(prefixes.map(deleteKeysUnder));
      }
    });
  });

  it('keeps every key under its prefix, each with an expiry', async () => {
    const prefix = nextPrefix();
    const limiter = new RedisRateLimiter(redis(), prefix);
    const scope = {
      key: 'token:a',
      requestsPerMinute: 5,
      tokensPerMinute: 50,
      concurrentRequests: 2,
    };
    try {
      await limiter.acquire({ scopes: [scope], estimatedTokens: 10, now: Date.now() });
      const keys = await keysUnder(prefix);
      expect(keys).toHaveLength(4);
      for (const key of keys) expect(await redis().pttl(key)).toBeGreaterThan(0);
    } finally {
      await deleteKeysUnder(prefix);
    }
  });

  it('sends the script with EVAL when Redis does not know its digest', async () => {
    const prefix = nextPrefix();
    const forgetful = new Proxy(redis(), {
      get(target, property) {
        if (property === 'evalsha') {
          return () => Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const limiter = new RedisRateLimiter(forgetful, prefix);
    const scope = { key: 'token:a', concurrentRequests: 1 };
    try {
      const decision = await limiter.acquire({ scopes: [scope], estimatedTokens: 0, now: T });
      if (!decision.ok) throw new Error('expected admission');
      expect((await limiter.acquire({ scopes: [scope], estimatedTokens: 0, now: T })).ok).toBe(
        false,
      );
      expect(await limiter.release(decision.lease, { actualTokens: 0, now: T })).toBe(true);
    } finally {
      await deleteKeysUnder(prefix);
    }
  });
});
