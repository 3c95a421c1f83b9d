import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import type BetterSqlite3 from 'better-sqlite3';

import { StoreHeldError } from '../store-held-error.ts';

export interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: number;
}

const defaultStaleAfterMilliseconds = 15_000;

export interface ProcessLeaseOptions {
  /** A lease whose heartbeat is older than this belongs to a process that is gone. */
  staleAfterMilliseconds?: number;
  heartbeatMilliseconds?: number;
  now?: () => number;
}

export interface ProcessLease {
  /** Gives the store up (on close); another process may take it at once. */
  release(): void;
}

/**
 * Makes this process the only gateway serving an SQLite file, or throws naming the one that
 * does. Needed because the owned ledger keeps holds in memory: two processes would each check
 * the balance against their own holds only and could overspend it together. The operator CLI
 * does not take the lease (it grants and reads, and never holds).
 *
 * A lease is stale when its heartbeat stopped, or at once when it names this host and a process
 * that no longer exists (a restart must not wait out the heartbeat).
 */
export function takeProcessLease(
  connection: BetterSqlite3.Database,
  options: ProcessLeaseOptions = {},
): ProcessLease {
  const now = options.now ?? Date.now;
  const owner = randomUUID();
  const host = hostname();
  const write = connection.prepare(
    `insert into process_lease (name, owner, pid, host, heartbeat_at)
     values ('gateway', ?, ?, ?, ?)
     on conflict (name) do update set owner = excluded.owner, pid = excluded.pid,
       host = excluded.host, heartbeat_at = excluded.heartbeat_at`,
  );
  const beat = connection.prepare(
    "update process_lease set heartbeat_at = ? where name = 'gateway' and owner = ?",
  );
  const give = connection.prepare("delete from process_lease where name = 'gateway' and owner = ?");

  const take = connection.transaction(() => {
    const current = readLiveLease(connection, options);
    if (current !== undefined) {
      throw new StoreHeldError(
        `${describeHolder(current, now())} serves this SQLite store. Run one gateway process per embedded store, or several on PostgreSQL (docs/operations.md).`,
      );
    }
    write.run(owner, process.pid, host, now());
  });
  take.immediate();

  const heartbeat = setInterval(() => {
    try {
      beat.run(now(), owner);
    } catch {
      // A busy file skips one beat; the lease stays fresh for several more.
    }
  }, options.heartbeatMilliseconds ?? 5_000).unref();
  return {
    release(): void {
      clearInterval(heartbeat);
      give.run(owner);
    },
  };
}

/**
 * The lease of another live gateway process on this file, or undefined when none holds it (or
 * the file is older than the lease table). Read without taking it: the operator CLI uses this
 * to refuse work a running gateway must not see happen, such as upgrading the schema under it.
 */
export function readLiveLease(
  connection: BetterSqlite3.Database,
  options: Pick<ProcessLeaseOptions, 'staleAfterMilliseconds' | 'now'> = {},
): LeaseRow | undefined {
  const table = connection
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'process_lease'")
    .get();
  if (table === undefined) return undefined;
  const current = connection
    .prepare<[], LeaseRow>(
      "select owner, pid, host, heartbeat_at from process_lease where name = 'gateway'",
    )
    .get();
  if (current === undefined) return undefined;
  const now = (options.now ?? Date.now)();
  const staleAfter = options.staleAfterMilliseconds ?? defaultStaleAfterMilliseconds;
  return isStale(current, now, staleAfter, hostname()) ? undefined : current;
}

/** "Another Switchyard process (pid 12 on host, alive 2 s ago)". */
export function describeHolder(lease: LeaseRow, now: number): string {
  const seconds = Math.max(0, Math.round((now - lease.heartbeat_at) / 1000));
  return `Another Switchyard process (pid ${lease.pid} on ${lease.host}, alive ${seconds} s ago)`;
}

function isStale(lease: LeaseRow, now: number, staleAfter: number, host: string): boolean {
  if (now - lease.heartbeat_at > staleAfter) return true;
  if (lease.host !== host) return false;
  // Same pid on this host: a previous incarnation of this very process (a container restart).
  return lease.pid === process.pid || !processExists(lease.pid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
