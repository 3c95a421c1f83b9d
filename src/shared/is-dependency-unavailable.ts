/**
 * True when an error means "a store the request needs cannot be reached right now" (PostgreSQL,
 * Redis, a busy SQLite file), as opposed to a bug. docs/decisions/0021: such a request answers 503
 * `not_ready` with a `retry-after`, never 500, and is never served without the store (money
 * fails closed). Upstream providers' transport failures are handled where they are called (502),
 * so they never reach the callers of this function.
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') {
    if (networkCodes.has(code) || code === 'SQLITE_BUSY') return true;
    // PostgreSQL SQLSTATE 08xxx: connection exception; 57P01-57P03: shutting down, cannot connect.
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  }
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (unavailableMessages.some((pattern) => pattern.test(error.message))) return true;
  // Node's connect reports every address it tried (happy eyeballs) in an AggregateError.
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDependencyUnavailable(inner, depth + 1))
  ) {
    return true;
  }
  return isDependencyUnavailable(error.cause, depth + 1);
}

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

const unavailableMessages = [
  // node-postgres
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  // ioredis
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
];

/** What a 503 `not_ready` for an unreachable store tells the client to wait. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;
