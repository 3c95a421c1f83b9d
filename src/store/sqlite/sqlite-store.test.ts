import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';

import { describeStoreContracts } from '../../../test/contract/describe-store-contracts.ts';
import { createTestAccount } from '../../../test/contract/store-contract-fixtures.ts';
import { openTemporarySqliteStore } from '../../../test/support/isolated-test-stores.ts';
import { openSqliteStore } from './open-sqlite-store.ts';

async function withTemporaryFolder<Result>(
  work: (folder: string) => Promise<Result>,
): Promise<Result> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-sqlite-'));
  try {
    return await work(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

describeStoreContracts('SQLite', () => openTemporarySqliteStore());
describeStoreContracts('SQLite, owned by the gateway process', () =>
  openTemporarySqliteStore(true),
);

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/** Resolves with everything the child printed once it prints a line starting with `marker`. */
function waitForLine(child: Child, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith(marker));
      if (line !== undefined) resolve(line);
    });
    child.on('exit', (code) =>
      reject(new Error(`child exited (${code}) before "${marker}": ${errors}`)),
    );
  });
}

describe('openSqliteStore', () => {
  it('creates missing folders, uses WAL and keeps data across reopening', async () => {
    await withTemporaryFolder(async (folder) => {
      const file = path.join(folder, 'nested', 'deeper', 'store.db');
      const first = await openSqliteStore({ path: file });
      const account = await createTestAccount(first);
      await first.close();

      await access(file);
      const inspector = new BetterSqlite3(file, { readonly: true });
      try {
        expect(inspector.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        inspector.close();
      }

      const reopened = await openSqliteStore({ path: file });
      try {
        expect(await reopened.accounts.getAccount(account.id)).toEqual(account);
      } finally {
        await reopened.close();
      }
    });
  });

  it('never overspends when several processes place holds on one file at once', async () => {
    await withTemporaryFolder(async (folder) => {
      const file = path.join(folder, 'store.db');
      const amount = 100;
      const affordable = 40;
      const setup = await openSqliteStore({ path: file });
      const account = await createTestAccount(setup);
      await setup.ledger.appendEntry({
        id: 'grant',
        accountId: account.id,
        amount: amount * affordable,
        kind: 'grant',
        reason: 'race',
        requestId: null,
        createdAt: Date.now(),
      });
      await setup.close();

      const childScript = fileURLToPath(
        new URL('../../../test/support/race-sqlite-holds-child.ts', import.meta.url),
      );
      const children: Child[] = Array.from({ length: 4 }, () =>
        spawn(
          process.execPath,
          ['--import', 'tsx', childScript, file, account.id, '30', String(amount)],
          { stdio: ['pipe', 'pipe', 'pipe'] },
        ),
      );
      try {
        await Promise.all(children.map((child) => waitForLine(child, 'ready')));
        const results = children.map((child) => waitForLine(child, 'placed '));
        for (const child of children) child.stdin.write('go\n');
        const placed = (await Promise.all(results)).map((line) => Number(line.split(' ')[1]));

        expect(placed.reduce((sum, count) => sum + count, 0)).toBe(affordable);
        const reopened = await openSqliteStore({ path: file });
        try {
          expect(await reopened.ledger.getBalance(account.id)).toEqual({
            balance: amount * affordable,
            held: amount * affordable,
            available: 0,
          });
        } finally {
          await reopened.close();
        }
      } finally {
        for (const child of children) child.kill();
      }
    });
    // Four Node processes start under tsx before the race: slow on a loaded host, and no timing
    // is asserted.
  }, 60_000);

  it('answers ping while open and fails it once closed', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
  });

  it('refuses a busy timeout that is not a whole number of milliseconds', async () => {
    await expect(
      openSqliteStore({ path: ':memory:', busyTimeoutMilliseconds: 1.5 }),
    ).rejects.toThrow(RangeError);
  });
});
