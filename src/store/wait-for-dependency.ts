/**
 * Start-up against a store that is not up yet (docs/decisions/0021): retry for a configured time,
 * saying in one log line which dependency is unreachable at which address, and give up with an
 * error that is one line too (no credential, no stack).
 */
export interface WaitForDependencyOptions<T> {
  /** `PostgreSQL`, `Redis`. */
  dependency: string;
  /** Its URL; only host, port and database are ever shown. */
  url: string;
  /** How long to keep retrying; 0 tries once. */
  waitMs: number;
  connect(): Promise<T>;
  /** Told once, at the first failure, that start-up waits. */
  warn(message: string, fields: Record<string, unknown>): void;
  sleep?: (milliseconds: number) => Promise<void>;
  now?: () => number;
}

export class DependencyUnreachableError extends Error {
  readonly dependency: string;
  readonly address: string;
  readonly reason: string;

  constructor(dependency: string, address: string, reason: string, waitedMs: number) {
    super(
      `${dependency} at ${address} is unreachable (${reason}); gave up after ${Math.round(waitedMs / 1000)} s (store.connectWaitSeconds).`,
    );
    this.name = 'DependencyUnreachableError';
    this.dependency = dependency;
    this.address = address;
    this.reason = reason;
  }
}

export async function waitForDependency<T>(options: WaitForDependencyOptions<T>): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ??
    ((milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));
  const address = describeAddress(options.url);
  const startedAt = now();
  let delay = 250;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await options.connect();
    } catch (error) {
      const reason = describeReason(error);
      const waited = now() - startedAt;
      if (waited + delay > options.waitMs) {
        throw new DependencyUnreachableError(options.dependency, address, reason, waited);
      }
      if (attempt === 1) {
        options.warn(
          `${options.dependency} at ${address} is unreachable (${reason}); retrying for up to ${Math.round(options.waitMs / 1000)} s`,
          { dependency: options.dependency, address, reason },
        );
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

/** `host:port/database` of a URL, never its user, password or query. */
export function describeAddress(url: string): string {
  try {
    const parsed = new URL(url);
    const database = parsed.pathname.replace(/^\/+/, '');
    return `${parsed.hostname}:${parsed.port || defaultPorts[parsed.protocol] || '?'}${database === '' ? '' : `/${database}`}`;
  } catch {
    return '(the configured address)';
  }
}

const defaultPorts: Record<string, string> = {
  'postgres:': '5432',
  'postgresql:': '5432',
  'redis:': '6379',
  'rediss:': '6379',
};

/** The error's code, or its first line: a reason, not a stack. */
function describeReason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return describeReason(error.errors[0]);
  }
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    return (error.message.split('\n')[0] ?? '').slice(0, 200) || error.name;
  }
  return String(error).slice(0, 200);
}
