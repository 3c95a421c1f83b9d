import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;

/**
 * `bytes` cryptographically random bytes as hex, drawn from a pooled buffer: one system call
 * per 4 KiB instead of one per id, which the benchmark profile showed on every request (request
 * and response ids). For identifiers, not for secrets: tokens draw their own randomness.
 */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) throw new RangeError(`randomHex draws at most ${pool.length} bytes`);
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const text = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return text;
}
