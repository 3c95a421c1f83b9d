import type { Config } from '../config/config-schema.ts';
import type { RoutingState } from '../routing/routing-state.ts';

/**
 * Shared through Redis when `store.redisUrl` is set (docs/decisions/0143), else undefined: the
 * gateway parts then keep the state in this process. Unlike the rate limiter, it connects in the
 * background: routing works without Redis, so neither start-up nor readiness waits for it.
 */
export async function composeRoutingState(
  config: Config,
  options: {
    now: () => number;
    logWarning(error: unknown, message: string): void;
    logInfo(message: string): void;
  },
): Promise<RoutingState | undefined> {
  const url = config.store.redisUrl;
  if (url === undefined) return undefined;
  // Loaded only when configured, like the PostgreSQL client (docs/performance.md).
  const { RedisRoutingState } = await import('../store/redis/redis-routing-state.ts');
  const { newRedisClient } = await import('../store/redis/connect-redis.ts');
  return new RedisRoutingState(
    // A write during an outage fails at once rather than queue behind the reconnect.
    newRedisClient(url, { enableOfflineQueue: false }),
    // The subscription waits for the connection however long it takes.
    newRedisClient(url, { maxRetriesPerRequest: null }),
    {
      keyPrefix: `${config.store.redisKeyPrefix}:routing`,
      maxPins: config.routing.affinityMaxEntries,
      now: options.now,
      onOutage: (error) =>
        options.logWarning(
          error,
          "Redis does not answer; routing goes on with this process's own view of upstream health until it does",
        ),
      onRecovery: () =>
        options.logInfo('Redis answers again; routing state is shared with the other processes'),
    },
  );
}
