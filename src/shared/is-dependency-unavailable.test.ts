import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from './is-dependency-unavailable.ts';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDependencyUnavailable', () => {
  it('recognises unreachable PostgreSQL, Redis and a busy SQLite file', () => {
    expect(isDependencyUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDependencyUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDependencyUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(
      true,
    );
    expect(isDependencyUnavailable(withCode('57P01', 'terminating connection'))).toBe(true);
    expect(isDependencyUnavailable(withCode('08006'))).toBe(true);
    const maxRetries = new Error('Reached the max retries per request limit');
    maxRetries.name = 'MaxRetriesPerRequestError';
    expect(isDependencyUnavailable(maxRetries)).toBe(true);
    expect(isDependencyUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(isDependencyUnavailable(withCode('SQLITE_BUSY'))).toBe(true);
    expect(isDependencyUnavailable(new AggregateError([withCode('ECONNREFUSED')]))).toBe(true);
    expect(isDependencyUnavailable(new Error('wrapped', { cause: withCode('ETIMEDOUT') }))).toBe(
      true,
    );
  });

  it('leaves bugs and data errors alone', () => {
    expect(isDependencyUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyUnavailable(withCode('23505', 'duplicate key'))).toBe(false);
    expect(isDependencyUnavailable(withCode('SQLITE_CONSTRAINT'))).toBe(false);
    expect(isDependencyUnavailable('ECONNREFUSED')).toBe(false);
  });
});
