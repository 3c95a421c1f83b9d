import { Redis, type RedisOptions } from 'ioredis';
import { waitForDependency } from '../wait-for-dependency.ts';

/**
 * The gateway's Redis client, connected before the gateway serves (docs/decisions/0021): start-up
 * waits up to `waitMs` for Redis, then fails with one line naming its address.
 *
 * While serving, a command fails within a few seconds when Redis is down (one retry after a
 * reconnect, a 2 s connect timeout) instead of queueing for ever, so the request that needs it
 * answers 503 `not_ready`; the client keeps reconnecting in the background.
 */
export async function connectRedis(
  url: string,
  options: { waitMs: number; warn(message: string, fields: Record<string, unknown>): void },
): Promise<Redis> {
  const client = newRedisClient(url, { lazyConnect: true });
  try {
    await waitForDependency({
      dependency: 'Redis',
      url,
      waitMs: options.waitMs,
      warn: options.warn,
      connect: async () => {
        if (client.status === 'wait') await client.connect();
        await client.ping();
      },
    });
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/**
 * A client that reconnects in the background for ever and fails a command within a few seconds
 * while Redis is down; `overrides` adjust it (a subscriber that must not lose its SUBSCRIBE, a
 * client whose commands fail at once rather than wait for a reconnect).
 */
export function newRedisClient(url: string, overrides: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    ...overrides,
  });
  // Each failed command rejects on its own; the event would otherwise print every reconnect
  // failure, with a stack, as an unhandled error.
  client.on('error', () => {});
  return client;
}
