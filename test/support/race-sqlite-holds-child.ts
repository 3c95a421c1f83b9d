/**
 * Child process for sqlite-store.test.ts: proves holds stay atomic across processes sharing
 * one SQLite file. Opens the store, prints `ready`, waits for any line on stdin so that every
 * child starts together, places its holds concurrently, then prints how many succeeded.
 */
import { once } from 'node:events';

import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';

const [file, accountId, attempts, amount] = process.argv.slice(2);
if (
  file === undefined ||
  accountId === undefined ||
  attempts === undefined ||
  amount === undefined
) {
  throw new Error('usage: race-sqlite-holds-child <file> <account id> <attempts> <amount>');
}

const store = await openSqliteStore({ path: file });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();

const outcomes = await Promise.all(
  Array.from({ length: Number(attempts) }, (_, index) =>
    store.ledger.placeHold({
      id: `hold-${process.pid}-${index}`,
      accountId,
      amount: Number(amount),
      expiresAt: Date.now() + 60_000,
    }),
  ),
);
await store.close();
process.stdout.write(`placed ${outcomes.filter(Boolean).length}\n`);
