import { createHash } from 'node:crypto';

/**
 * What the store keeps of a client's idempotency key: its SHA-256 in hex. The store needs only
 * to tell keys apart, and a client that mistakes a secret for a key (it happens) then leaves no
 * copy of it at rest (docs/decisions/0106). Lookups hash the key they are given the same way.
 */
export function hashIdempotencyKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
