import type { Config } from '../config/config-schema.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { StartupWarn } from './open-store.ts';

export interface ComposedRateLimiter {
  rateLimiter: RateLimiter;
  /** Readiness: rejects when the limiter's backing service does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Redis when `store.redisUrl` is set and limits are configured (limits shared by every replica),
 * else in memory. docs/decisions/0021: Redis holds only the shared rate limits, so without limits
 * it is not used, and neither readiness nor start-up depends on it.
 */
export async function composeRateLimiter(
  config: Config,
  options: { warn: StartupWarn; logWarning(error: unknown, message: string): void },
): Promise<ComposedRateLimiter> {
  const limited = config.limits.token !== undefined || config.limits.account !== undefined;
  if (config.store.redisUrl === undefined || !limited) {
    const rateLimiter = new MemoryRateLimiter();
    return { rateLimiter, ping: async () => {}, close: async () => rateLimiter.close() };
  }
  // Loaded only when configured, like the PostgreSQL client (docs/performance.md).
  const { RedisRateLimiter } = await import('../store/redis/redis-rate-limiter.ts');
  const { connectRedis } = await import('../store/redis/connect-redis.ts');
  const redis = await connectRedis(config.store.redisUrl, {
    waitMs: config.store.connectWaitSeconds * 1000,
    warn: options.warn,
  });
  const rateLimiter = new RedisRateLimiter(redis, `${config.store.redisKeyPrefix}:limits`, {
    onHeartbeatError: (error) =>
      options.logWarning(error, 'renewing rate-limit leases failed; retrying'),
  });
  return {
    rateLimiter,
    ping: async () => {
      await redis.ping();
    },
    close: async () => {
      rateLimiter.close();
      await redis.quit();
    },
  };
}
