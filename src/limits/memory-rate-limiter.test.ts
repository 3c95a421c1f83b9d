import { describe, expect, it } from 'vitest';

import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { describeRateLimiterContract } from './rate-limiter.contract.ts';

describeRateLimiterContract('MemoryRateLimiter', async (options) => ({
  limiter: new MemoryRateLimiter(options),
  cleanup: async () => {},
}));

describe('MemoryRateLimiter memory', () => {
  const T = 1_700_000_000_000;
  const scope = (key: string) => ({
    key,
    requestsPerMinute: 10,
    tokensPerMinute: 1_000,
    concurrentRequests: 2,
  });
  const other = { key: 'token:other', requestsPerMinute: 10 };

  it('forgets a scope once a whole window passed without use, and keeps one still in use', async () => {
    // A 10-minute lease stands for one its heartbeat kept alive that long.
    const limiter = new MemoryRateLimiter({ leaseTtlMs: 10 * 60_000 });
    const idle = await limiter.acquire({
      scopes: [scope('token:idle')],
      estimatedTokens: 5,
      now: T,
    });
    const busy = await limiter.acquire({
      scopes: [scope('token:busy')],
      estimatedTokens: 5,
      now: T,
    });
    if (!idle.ok || !busy.ok) throw new Error('expected both admitted');
    await limiter.release(idle.lease, { actualTokens: 7, now: T + 1_000 });
    expect(limiter.scopeCount).toBe(2);

    // Still counted 59 s on: nothing is forgotten yet.
    await limiter.acquire({ scopes: [other], estimatedTokens: 0, now: T + 59_000 });
    expect(limiter.scopeCount).toBe(3);

    // A window later the idle scope is gone; the busy one keeps its open lease.
    await limiter.acquire({ scopes: [other], estimatedTokens: 0, now: T + 120_000 });
    expect(limiter.scopeCount).toBe(2);
    expect(await limiter.release(busy.lease, { actualTokens: 5, now: T + 121_000 })).toBe(true);
    limiter.close();
  });
});
