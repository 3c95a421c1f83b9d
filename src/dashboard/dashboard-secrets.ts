import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: a sign-in code, a session cookie or a CSRF token. */
export function newDashboardSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a secret (docs/decisions/0168): its hex SHA-256, never the secret. */
export function hashDashboardSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The shape `newDashboardSecret` makes: anything else is refused before the store is asked. */
export function isDashboardSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
