import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_LIMIT_LEASE_TTL_MS,
  type RateLimitAdmission,
  type RateLimitDecision,
  type RateLimitLease,
  type RateLimitRefusal,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitScope,
} from './rate-limiter.ts';

/** Whole seconds, so bucket boundaries are easy to reason about; offsets below are not. */
const T = 1_700_000_000_000;

function admitted(decision: RateLimitDecision): RateLimitLease {
  if (!decision.ok) {
    throw new Error(`expected admission, got a refusal: ${JSON.stringify(decision)}`);
  }
  return decision.lease;
}

function admission(decision: RateLimitDecision): RateLimitAdmission {
  admitted(decision);
  return decision as RateLimitAdmission;
}

function refused(decision: RateLimitDecision): RateLimitRefusal {
  if (decision.ok) throw new Error('expected a refusal, the request was admitted');
  expect(Number.isInteger(decision.retryAfterSeconds)).toBe(true);
  expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  return decision;
}

/**
 * The behaviour every RateLimiter adapter owes the pipeline (docs/architecture.md). `create`
 * returns a limiter with empty state, built with `options` (the default lease TTL when absent).
 */
export function describeRateLimiterContract(
  name: string,
  create: (
    options?: RateLimiterOptions,
  ) => Promise<{ limiter: RateLimiter; cleanup(): Promise<void> }>,
): void {
  describe(`${name} honours the RateLimiter contract`, () => {
    let limiter: RateLimiter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ limiter, cleanup } = await create());
    });
    afterEach(async () => {
      limiter.close();
      await cleanup();
    });

    const acquire = (scopes: RateLimitScope[], now: number, estimatedTokens = 0) =>
      limiter.acquire({ scopes, estimatedTokens, now });

    it('admits requestsPerMinute requests, then refuses until the oldest leaves the window', async () => {
      const token = { key: 'token:a', requestsPerMinute: 3 };
      for (const offset of [250, 10_250, 20_250]) admitted(await acquire([token], T + offset));

      const now = T + 30_250;
      const refusal = refused(await acquire([token], now));
      expect(refusal).toMatchObject({ limit: 'requests', scopeKey: 'token:a' });
      expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);

      const retryAt = now + refusal.retryAfterSeconds * 1000;
      refused(await acquire([token], retryAt - 1000));
      admitted(await acquire([token], retryAt));
      // Sliding, not a reset: only the oldest request has left, the other two still count.
      expect(refused(await acquire([token], retryAt)).limit).toBe('requests');
    });

    it('tells where the limits stand after each admission, this request counted', async () => {
      const token = { key: 'token:a', requestsPerMinute: 3, tokensPerMinute: 1000 };
      // Each charge leaves the window when its second is 60 s old: 59.75 s from 250 ms into it.
      expect(admission(await acquire([token], T + 250, 100))).toMatchObject({
        standing: {
          requests: { limit: 3, remaining: 2, resetMs: 59_750 },
          tokens: { limit: 1000, remaining: 900, resetMs: 59_750 },
        },
      });
      const second = admission(await acquire([token], T + 10_900, 200));
      expect(second.standing).toEqual({
        requests: { limit: 3, remaining: 1, resetMs: 59_100 },
        tokens: { limit: 1000, remaining: 700, resetMs: 59_100 },
      });
      await limiter.release(second.lease, { actualTokens: 50, now: T + 11_000 });
      // The correction counts: 100 + 50 + 900 estimated reach the limit, and no less than 0.
      expect(admission(await acquire([token], T + 12_000, 900)).standing.tokens).toEqual({
        limit: 1000,
        remaining: 0,
        resetMs: 60_000,
      });
    });

    it('tells the tighter of the scopes, and nothing for a kind no scope limits', async () => {
      const token = { key: 'token:a', requestsPerMinute: 10 };
      const account = { key: 'account:a', requestsPerMinute: 4, tokensPerMinute: 500 };
      admitted(await acquire([{ key: 'token:b' }, account], T, 0));
      admitted(await acquire([{ key: 'token:c' }, account], T + 20_000, 0));
      expect(admission(await acquire([token, account], T + 30_000, 0)).standing).toEqual({
        // The account has 1 left of 4, the token 9 of 10; the account's window reset follows
        // its newest charge.
        requests: { limit: 4, remaining: 1, resetMs: 60_000 },
        // Nothing counted yet: the whole limit is left and there is nothing to wait for.
        tokens: { limit: 500, remaining: 500, resetMs: 0 },
      });
      expect(admission(await acquire([{ key: 'token:d' }], T)).standing).toEqual({});
    });

    it('tells where the limits stand on a refusal, which charged nothing', async () => {
      const token = { key: 'token:a', requestsPerMinute: 2, tokensPerMinute: 1000 };
      admitted(await acquire([token], T, 300));
      admitted(await acquire([token], T + 5000, 300));
      const refusal = refused(await acquire([token], T + 7_500, 300));
      expect(refusal.standing).toEqual({
        requests: { limit: 2, remaining: 0, resetMs: 57_500 },
        tokens: { limit: 1000, remaining: 400, resetMs: 57_500 },
      });
    });

    it('keeps scopes apart and treats an absent limit as unlimited', async () => {
      admitted(await acquire([{ key: 'token:a', requestsPerMinute: 1 }], T));
      admitted(await acquire([{ key: 'token:b', requestsPerMinute: 1 }], T));
      for (let index = 0; index < 20; index += 1) {
        admitted(await acquire([{ key: 'token:a' }], T, 1_000_000));
      }
      admitted(await acquire([], T));
    });

    it('names the limit that frees last, and its retry-after is enough for every scope', async () => {
      const first = { key: 'token:a', requestsPerMinute: 1 };
      const second = { key: 'account:a', requestsPerMinute: 1 };
      admitted(await acquire([first], T));
      admitted(await acquire([second], T + 30_000));

      const now = T + 40_000;
      const refusal = refused(await acquire([first, second], now));
      expect(refusal).toMatchObject({ limit: 'requests', scopeKey: 'account:a' });
      const retryAt = now + refusal.retryAfterSeconds * 1000;
      expect(refused(await acquire([first, second], retryAt - 1000)).scopeKey).toBe('account:a');
      admitted(await acquire([first, second], retryAt));
    });

    it('counts the token estimate on admit and admits while the window is below the limit', async () => {
      const token = { key: 'token:a', tokensPerMinute: 1000 };
      admitted(await acquire([token], T, 600));
      // 600 counted < 1000: admitted although the estimate overshoots.
      admitted(await acquire([token], T + 1000, 600));

      const now = T + 2000;
      const refusal = refused(await acquire([token], now, 1));
      expect(refusal).toMatchObject({ limit: 'tokens', scopeKey: 'token:a' });
      // Dropping the first 600 leaves 600 < 1000, so the first bucket's exit is the answer.
      const retryAt = now + refusal.retryAfterSeconds * 1000;
      refused(await acquire([token], retryAt - 1000, 1));
      admitted(await acquire([token], retryAt, 1));

      // An estimate larger than the whole limit still passes an empty window.
      admitted(await acquire([{ key: 'token:b', tokensPerMinute: 1000 }], T, 5000));
    });

    it('replaces the estimate by the actual tokens on release', async () => {
      const token = { key: 'token:a', tokensPerMinute: 1000 };
      const lease = admitted(await acquire([token], T, 1000));
      expect(lease).toMatchObject({ estimatedTokens: 1000, acquiredAt: T, scopes: [token] });
      refused(await acquire([token], T + 1000, 1));

      expect(await limiter.release(lease, { actualTokens: 200, now: T + 2000 })).toBe(true);
      // Exactly 200 remain counted: 799 + 1 more brings the window to 1000, the limit.
      admitted(await acquire([token], T + 2000, 799));
      admitted(await acquire([token], T + 3000, 1));
      expect(refused(await acquire([token], T + 3000, 1)).limit).toBe('tokens');
    });

    it('counts an overrun reported on release against the following requests', async () => {
      const token = { key: 'token:a', tokensPerMinute: 1000 };
      const lease = admitted(await acquire([token], T, 100));
      await limiter.release(lease, { actualTokens: 1500, now: T + 5000 });

      const refusal = refused(await acquire([token], T + 5000, 1));
      expect(refusal.limit).toBe('tokens');
      admitted(await acquire([token], T + 5000 + refusal.retryAfterSeconds * 1000, 1));
    });

    it('still counts the overrun of a request that outlived the window', async () => {
      // A lease that lives 2 minutes stands for one the heartbeat kept alive that long.
      const long = await create({ leaseTtlMs: 120_000 });
      const acquireLong = (now: number) =>
        long.limiter.acquire({ scopes: [token], estimatedTokens: now === T ? 10 : 1, now });
      const token = { key: 'token:a', tokensPerMinute: 1000 };
      try {
        const lease = admitted(await acquireLong(T));
        const now = T + 90_000;
        expect(await long.limiter.release(lease, { actualTokens: 2000, now })).toBe(true);

        const refusal = refused(await acquireLong(now));
        expect(refusal.limit).toBe('tokens');
        refused(await acquireLong(now + (refusal.retryAfterSeconds - 1) * 1000));
        admitted(await acquireLong(now + refusal.retryAfterSeconds * 1000));
      } finally {
        long.limiter.close();
        await long.cleanup();
      }
    });

    it('refuses the request beyond concurrentRequests until a lease is released', async () => {
      const token = { key: 'token:a', concurrentRequests: 2 };
      const first = admitted(await acquire([token], T));
      admitted(await acquire([token], T));
      // docs/decisions/0020: the truth is the time until the earliest lease expires if its holder
      // died.
      expect(refused(await acquire([token], T + 1))).toMatchObject({
        limit: 'concurrency',
        scopeKey: 'token:a',
        retryAfterSeconds: Math.ceil((DEFAULT_RATE_LIMIT_LEASE_TTL_MS - 1) / 1000),
      });

      expect(await limiter.release(first, { actualTokens: 0, now: T + 2 })).toBe(true);
      admitted(await acquire([token], T + 3));
      refused(await acquire([token], T + 4));
    });

    it('charges no scope when another scope refuses', async () => {
      const token = {
        key: 'token:a',
        requestsPerMinute: 2,
        tokensPerMinute: 1000,
        concurrentRequests: 1,
      };
      const account = { key: 'account:a', requestsPerMinute: 1 };
      admitted(await acquire([{ key: 'token:other' }, account], T));

      expect(refused(await acquire([token, account], T + 1, 900))).toMatchObject({
        limit: 'requests',
        scopeKey: 'account:a',
      });

      // Had the refusal charged the token, its only slot, 1800 tokens or both of its requests
      // would be taken, and one of the two acquires below would be refused.
      const lease = admitted(await acquire([token], T + 2, 900));
      await limiter.release(lease, { actualTokens: 900, now: T + 3 });
      admitted(await acquire([token], T + 4, 1));
      expect(refused(await acquire([{ key: 'token:a', requestsPerMinute: 2 }], T + 5)).limit).toBe(
        'requests',
      );
    });

    it('ignores a second release of the same lease', async () => {
      const token = { key: 'token:a', tokensPerMinute: 1000, concurrentRequests: 2 };
      const first = admitted(await acquire([token], T, 500));
      const second = admitted(await acquire([token], T, 0));
      expect(await limiter.release(first, { actualTokens: 100, now: T + 1 })).toBe(true);
      expect(await limiter.release(first, { actualTokens: 100, now: T + 2 })).toBe(false);

      // One slot freed, not two; 100 tokens counted, not 100 − 400.
      admitted(await acquire([token], T + 3, 900));
      expect(refused(await acquire([{ key: 'token:a', concurrentRequests: 2 }], T + 4)).limit).toBe(
        'concurrency',
      );
      await limiter.release(second, { actualTokens: 0, now: T + 5 });
      expect(refused(await acquire([token], T + 6, 1)).limit).toBe('tokens');
    });

    it('frees the concurrency slot of a lease that was never released once it expires', async () => {
      const token = { key: 'token:a', concurrentRequests: 1 };
      const lost = admitted(await acquire([token], T));
      expect(lost.expiresAt - lost.acquiredAt).toBe(DEFAULT_RATE_LIMIT_LEASE_TTL_MS);

      expect(refused(await acquire([token], lost.expiresAt - 1)).retryAfterSeconds).toBe(1);
      const next = admitted(await acquire([token], lost.expiresAt));
      // The late release of the expired lease must not free the slot its successor holds.
      expect(await limiter.release(lost, { actualTokens: 0, now: lost.expiresAt + 1 })).toBe(false);
      refused(await acquire([token], lost.expiresAt + 2));
      expect(await limiter.release(next, { actualTokens: 0, now: lost.expiresAt + 3 })).toBe(true);
    });

    it('admits exactly requestsPerMinute of 50 simultaneous acquires', async () => {
      const token = { key: 'token:a', requestsPerMinute: 10 };
      const decisions = await Promise.all(
        Array.from({ length: 50 }, () => acquire([token], T, 10)),
      );
      expect(decisions.filter((decision) => decision.ok)).toHaveLength(10);
      for (const decision of decisions.filter((candidate) => !candidate.ok)) {
        expect(decision).toMatchObject({ limit: 'requests', scopeKey: 'token:a' });
      }
    });

    it('rejects a scope named twice and limits that are not positive integers', async () => {
      const token = { key: 'token:a', requestsPerMinute: 5 };
      await expect(acquire([token, { ...token }], T)).rejects.toThrow(RangeError);
      await expect(acquire([{ key: 'token:a', tokensPerMinute: 0 }], T)).rejects.toThrow(
        RangeError,
      );
      await expect(acquire([token], T, -1)).rejects.toThrow(RangeError);
      // Nothing was charged by the rejected calls.
      for (let index = 0; index < 5; index += 1) admitted(await acquire([token], T));
      refused(await acquire([token], T));
    });

    it('keeps a held lease alive past its TTL, and lets it expire within the TTL once its heartbeat stops', async () => {
      const ttl = 600;
      const held = await create({ leaseTtlMs: ttl, heartbeatMs: 100 });
      const token = { key: 'token:beat', concurrentRequests: 1 };
      const acquireNow = () =>
        held.limiter.acquire({ scopes: [token], estimatedTokens: 0, now: Date.now() });
      try {
        const lease = admitted(await acquireNow());
        await sleep(3 * ttl);
        expect(refused(await acquireNow()).retryAfterSeconds).toBe(Math.ceil(ttl / 1000));

        held.limiter.close(); // the holder dies
        const diedAt = Date.now();
        let decision = await acquireNow();
        while (!decision.ok && Date.now() - diedAt < 5 * ttl) {
          await sleep(20);
          decision = await acquireNow();
        }
        admitted(decision);
        expect(Date.now() - diedAt).toBeLessThanOrEqual(ttl + 150);
        expect(await held.limiter.release(lease, { actualTokens: 0, now: Date.now() })).toBe(false);
      } finally {
        held.limiter.close();
        await held.cleanup();
      }
    });
  });
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
