import { Redis } from 'ioredis';

export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A connection to this machine's Redis for a suite, or undefined when it does not answer: the
 * suite is then skipped with a loud warning, except under CI, where that is a failure.
 */
export async function connectTestRedis(suite: string): Promise<Redis | undefined> {
  const client = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // Failed commands reject their own promises; the event only carries the socket's cause.
  let socketError: unknown;
  client.on('error', (error: unknown) => {
    socketError = error;
  });
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    const cause = socketError ?? error;
    if (process.env.CI) throw new Error(`Redis at ${testRedisUrl} does not answer`, { cause });
    console.warn(
      `\n!!! SKIPPING the ${suite} tests: Redis at ${testRedisUrl} does not answer ` +
        `(${String(cause)}). They fail instead when CI is set.\n`,
    );
    return undefined;
  }
}

/** Why Redis cannot be used, or undefined when it answers (the probe's connection is closed). */
export async function probeTestRedis(): Promise<string | undefined> {
  const client = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.disconnect();
  }
}
