import { randomUUID } from 'node:crypto';

import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { describeStoreContracts } from '../../../test/contract/describe-store-contracts.ts';
import { createTestAccount } from '../../../test/contract/store-contract-fixtures.ts';
import {
  dropSchema,
  openIsolatedPostgresStore,
  postgresConnectionString as connectionString,
  probePostgres,
  uniqueSchema,
} from '../../../test/support/isolated-test-stores.ts';
import { openPostgresStore } from './open-postgres-store.ts';

// Follows the usual CI convention: set to anything but "false".
const ciRequiresPostgres = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';

/** The connection string without its password, for messages. */
function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable connection string)';
  }
}

const unreachableReason = await probePostgres();

if (unreachableReason === undefined) {
  describeStoreContracts('PostgreSQL', openIsolatedPostgresStore);

  describe('openPostgresStore', () => {
    it('creates its tables in the given schema and finds them again on reopening', async () => {
      const schema = uniqueSchema();
      try {
        const first = await openPostgresStore({ connectionString, schema });
        const account = await createTestAccount(first);
        await first.close();

        const client = new pg.Client({ connectionString });
        await client.connect();
        try {
          const { rows } = await client.query<{ table_name: string }>(
            'select table_name from information_schema.tables where table_schema = $1',
            [schema],
          );
          expect(rows.map((row) => row.table_name)).toEqual(
            expect.arrayContaining([
              'accounts',
              'api_keys',
              'ledger_entries',
              'balances',
              'holds',
              'usage_records',
            ]),
          );
        } finally {
          await client.end();
        }

        const reopened = await openPostgresStore({ connectionString, schema });
        try {
          expect(await reopened.accounts.getAccount(account.id)).toEqual(account);
        } finally {
          await reopened.close();
        }
      } finally {
        await dropSchema(schema);
      }
    });

    it('writes a settlement whole or not at all when the store fails it', async () => {
      const schema = uniqueSchema();
      const store = await openPostgresStore({ connectionString, schema });
      const client = new pg.Client({ connectionString });
      await client.connect();
      try {
        const account = await createTestAccount(store);
        await store.ledger.appendEntry({
          id: `entry_${randomUUID()}`,
          accountId: account.id,
          amount: 1_000,
          kind: 'grant',
          reason: 'test',
          requestId: null,
          createdAt: Date.now(),
        });
        const hold = {
          id: `hold_${randomUUID()}`,
          accountId: account.id,
          amount: 400,
          expiresAt: Date.now() + 60_000,
        };
        expect(await store.ledger.placeHold(hold)).toBe(true);
        // The usage record fails after the charge was written in the same transaction.
        await client.query(`
          create function "${schema}".refuse_usage() returns trigger language plpgsql as
            $$ begin raise exception 'usage records are refused'; end $$;
          create trigger refuse_usage before insert on "${schema}".usage_records
            for each row execute function "${schema}".refuse_usage();`);
        const settlement = {
          id: `entry_${randomUUID()}`,
          holdId: hold.id,
          accountId: account.id,
          cost: 150,
          reason: 'generation',
          requestId: 'request',
          createdAt: Date.now(),
          record: {
            requestId: 'request',
            accountId: account.id,
            apiKeyId: 'key',
            surface: 'messages',
            model: 'model',
            deployment: 'provider/model',
            inputTokens: 10,
            inputCacheReadTokens: 0,
            inputCacheWrite5mTokens: 0,
            inputCacheWrite1hTokens: 0,
            outputTokens: 5,
            reasoningTokens: 0,
            latencyMs: 1,
            firstTokenMs: null,
            outcome: 'ok',
            status: 200,
            createdAt: Date.now(),
          },
        };
        await expect(store.ledger.settle(settlement)).rejects.toThrow(/refused/);
        // Nothing of it stayed: no charge, no entry, the hold still open for the retry.
        expect(await store.ledger.getBalance(account.id)).toEqual({
          balance: 1_000,
          held: 400,
          available: 600,
        });
        expect(await store.ledger.listEntries(account.id, 10)).toHaveLength(1);

        await client.query(`drop trigger refuse_usage on "${schema}".usage_records`);
        expect(await store.ledger.settle(settlement)).toEqual({ charged: 150, shortfall: 0 });
        expect(await store.ledger.settle(settlement)).toEqual({ charged: 150, shortfall: 0 });
        expect(await store.ledger.getBalance(account.id)).toEqual({
          balance: 850,
          held: 0,
          available: 850,
        });
        expect(await store.usage.listUsage(account.id, 10)).toHaveLength(1);
      } finally {
        await client.end();
        await store.close();
        await dropSchema(schema);
      }
    });

    it('answers ping while open and fails it once closed', async () => {
      const store = await openIsolatedPostgresStore();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });

    it('refuses a schema name that would need quoting', async () => {
      await expect(
        openPostgresStore({ connectionString, schema: 'public"; drop table accounts; --' }),
      ).rejects.toThrow(RangeError);
    });
  });
} else if (ciRequiresPostgres) {
  describe('PostgreSQL store', () => {
    it('reaches PostgreSQL, which CI requires', () => {
      throw new Error(
        `PostgreSQL at ${describeServer(connectionString)} did not answer (${unreachableReason}); ` +
          'CI must run the PostgreSQL contract suites. Set SWITCHYARD_TEST_POSTGRES_URL.',
      );
    });
  });
} else {
  console.warn(
    `\n*** PostgreSQL contract suites SKIPPED: ${describeServer(connectionString)} did not answer ` +
      `(${unreachableReason}). Start PostgreSQL or set SWITCHYARD_TEST_POSTGRES_URL to run them. ***\n`,
  );
  describe.skip('PostgreSQL store (PostgreSQL did not answer)', () => {
    it('runs the contract suites', () => {});
  });
}
