import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface RedisScript {
  source: string;
  sha1: string;
}

export function defineRedisScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * EVALSHA, so the hot path sends 40 bytes instead of the script; EVAL once when the server does
 * not know the script yet (first use, restart, SCRIPT FLUSH), which also caches it there
 * (https://redis.io/docs/latest/commands/evalsha/). Done here rather than with ioredis
 * `defineCommand` so that a client shared with other modules is not mutated.
 */
export async function runRedisScript(
  client: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha1, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.source, keys.length, ...keys, ...args);
  }
}
