import { describe, expect, it } from 'vitest';
import {
  DependencyUnreachableError,
  describeAddress,
  waitForDependency,
} from './wait-for-dependency.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });

describe('waitForDependency', () => {
  it('retries until the dependency answers, saying so once', async () => {
    let clock = 0;
    let attempts = 0;
    const warnings: string[] = [];
    const value = await waitForDependency({
      dependency: 'PostgreSQL',
      url: 'postgres://app:s3cret@10.0.0.5:5432/gateway?sslmode=require',
      waitMs: 30_000,
      connect: async () => {
        attempts += 1;
        if (attempts < 4) throw refused();
        return 'connected';
      },
      warn: (message) => warnings.push(message),
      sleep: async (milliseconds) => {
        clock += milliseconds;
      },
      now: () => clock,
    });
    expect(value).toBe('connected');
    expect(attempts).toBe(4);
    expect(warnings).toEqual([
      'PostgreSQL at 10.0.0.5:5432/gateway is unreachable (ECONNREFUSED); retrying for up to 30 s',
    ]);
  });

  it('gives up after the configured time with one line naming the address, never the credential', async () => {
    let clock = 0;
    const error: unknown = await waitForDependency({
      dependency: 'Redis',
      url: 'redis://:hunter2@cache.internal:6380/0',
      waitMs: 3_000,
      connect: async () => {
        throw refused();
      },
      warn: () => {},
      sleep: async (milliseconds) => {
        clock += milliseconds;
      },
      now: () => clock,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnreachableError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Redis at cache\.internal:6380\/0 is unreachable \(ECONNREFUSED\)/);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('\n');
    expect(clock).toBeLessThanOrEqual(3_000);
  });

  it('tries once when the wait is 0', async () => {
    let attempts = 0;
    await expect(
      waitForDependency({
        dependency: 'Redis',
        url: 'redis://127.0.0.1:1',
        waitMs: 0,
        connect: async () => {
          attempts += 1;
          throw refused();
        },
        warn: () => {},
      }),
    ).rejects.toBeInstanceOf(DependencyUnreachableError);
    expect(attempts).toBe(1);
  });

  it('shows host, port and database only', () => {
    expect(describeAddress('postgresql://u:p@db:5433/x?password=p')).toBe('db:5433/x');
    expect(describeAddress('redis://default:p@cache')).toBe('cache:6379');
    expect(describeAddress('host=db password=p')).toBe('(the configured address)');
  });
});
