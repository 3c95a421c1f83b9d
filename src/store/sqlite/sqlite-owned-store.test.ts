import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Settlement } from '../../billing/credit-ledger.ts';
import type { UsageRecord } from '../../generation/usage-store.ts';
import type { StoredResponse } from '../../responses-state/response-store.ts';
import { createTestAccount, uniqueId } from '../../../test/contract/store-contract-fixtures.ts';
import { stepBackLastMigration } from '../../../test/support/migration-databases.ts';
import type { Store } from '../store.ts';
import { openSqliteStore } from './open-sqlite-store.ts';

let folder: string;
let file: string;
const opened: Store[] = [];

beforeEach(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-owned-'));
  file = path.join(folder, 'store.db');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await rm(folder, { recursive: true, force: true });
});

async function open(
  options: {
    owner?: boolean;
    busyTimeoutMilliseconds?: number;
    knownBalanceMilliseconds?: number;
  } = {},
) {
  const store = await openSqliteStore({ path: file, owner: true, ...options });
  opened.push(store);
  return store;
}

async function fundedAccount(store: Store, amount: number): Promise<string> {
  const account = await createTestAccount(store);
  await store.ledger.appendEntry({
    id: uniqueId('entry'),
    accountId: account.id,
    amount,
    kind: 'grant',
    reason: 'test',
    requestId: null,
    createdAt: Date.now(),
  });
  return account.id;
}

function usageRecord(accountId: string, cost: number): UsageRecord {
  return {
    requestId: uniqueId('request'),
    accountId,
    apiKeyId: 'key',
    surface: 'chat',
    model: 'model',
    deployment: 'provider/model',
    inputTokens: 10,
    inputCacheReadTokens: 0,
    inputCacheWrite5mTokens: 0,
    inputCacheWrite1hTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    cost,
    shortfall: 0,
    latencyMs: 3,
    firstTokenMs: null,
    outcome: 'ok',
    status: 200,
    createdAt: Date.now(),
  };
}

function settlement(hold: { id: string; accountId: string }, cost: number): Settlement {
  const { cost: _cost, shortfall: _shortfall, ...record } = usageRecord(hold.accountId, cost);
  return {
    id: uniqueId('entry'),
    holdId: hold.id,
    accountId: hold.accountId,
    reason: 'generation',
    requestId: record.requestId,
    createdAt: Date.now(),
    cost,
    record,
  };
}

/** An operator entry made as the CLI makes it: from another process, through the durable store. */
async function entryFromOutside(
  accountId: string,
  amount: number,
  kind: 'grant' | 'adjustment',
  reason: string,
): Promise<void> {
  const cli = await openSqliteStore({ path: file });
  try {
    const refused = await cli.ledger.appendEntry({
      id: uniqueId('entry'),
      accountId,
      amount,
      kind,
      reason,
      requestId: null,
      createdAt: Date.now(),
    });
    expect(refused).toBeUndefined();
  } finally {
    await cli.close();
  }
}

/**
 * Opens the file in a process of its own, as a gateway (`owner`) or as the operator CLI does,
 * and closes it again: its exit code and what it wrote to stderr.
 */
async function openInAnotherProcess(owner: boolean): Promise<{ code: number; errors: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { openSqliteStore } from ${JSON.stringify(path.resolve('src/store/sqlite/open-sqlite-store.ts'))};
       const store = await openSqliteStore({ path: ${JSON.stringify(file)}, owner: ${owner} });
       await store.close();`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number, errors };
}

/** Reads the file the way another process (the operator CLI) would. */
function readFromOutside<Row>(query: string, ...parameters: unknown[]): Row[] {
  const connection = new BetterSqlite3(file, { readonly: true });
  try {
    return connection.prepare(query).all(...parameters) as Row[];
  } finally {
    connection.close();
  }
}

/** The hourly rollups as they are, and as the usage records in the file add up. */
function rollupsAndRecordSums(): { rollups: unknown[]; sums: unknown[] } {
  const columns =
    'requests, input_tokens, input_cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost';
  const keys = 'account_id, hour, api_key_id, model, deployment';
  return {
    rollups: readFromOutside(`select ${keys}, ${columns} from usage_rollups order by ${keys}`),
    sums: readFromOutside(
      `select ${keys}, ${columns} from (select account_id, created_at - created_at % 3600000 as hour,
         api_key_id, model, coalesce(deployment, '') as deployment, count(*) as requests,
         sum(input_tokens) as input_tokens, sum(input_cache_read_tokens) as input_cache_read_tokens,
         sum(input_cache_write_5m_tokens + input_cache_write_1h_tokens) as cache_write_tokens,
         sum(output_tokens) as output_tokens, sum(reasoning_tokens) as reasoning_tokens,
         sum(cost) as cost
       from usage_records group by 1, 2, 3, 4, 5) order by ${keys}`,
    ),
  };
}

describe('SQLite store owned by the gateway process', () => {
  it('refuses a second gateway process on the same file and names the one that holds it', async () => {
    await open();
    const { code, errors } = await openInAnotherProcess(true);
    expect(code).not.toBe(0);
    expect(errors).toContain(`Another Switchyard process (pid ${process.pid}`);
  });

  it('refuses to migrate a file a live gateway serves, and migrates it once that gateway stops', async () => {
    const gateway = await open();
    const last = await stepBackLastMigration(file);
    const applied = () =>
      readFromOutside<{ name: string }>('select name from kysely_migration').map((row) => row.name);

    // A newer build (the CLI, from another process) opens the file the gateway serves.
    const refused = await openInAnotherProcess(false);
    expect(refused.code).not.toBe(0);
    expect(refused.errors).toContain(`Another Switchyard process (pid ${process.pid}`);
    expect(refused.errors).toContain(`would upgrade it (${last})`);
    expect(applied()).not.toContain(last);

    await gateway.close();
    opened.splice(opened.indexOf(gateway), 1);
    expect(await openInAnotherProcess(false)).toEqual({ code: 0, errors: '' });
    expect(applied()).toContain(last);
  });

  it('lets a process take over at once when the holder is gone, and after close', async () => {
    const first = await open();
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    await expect(open()).resolves.toBeDefined();

    // A lease left by a process that no longer exists (on this host) does not block a restart.
    const connection = new BetterSqlite3(file);
    connection
      .prepare("update process_lease set pid = 999999999, owner = 'gone' where name = 'gateway'")
      .run();
    connection.close();
    for (const store of opened.splice(0)) await store.close();
    await expect(open()).resolves.toBeDefined();
  });

  it('commits a settlement and its usage record together, after the current turn', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const hold = { id: uniqueId('hold'), accountId, amount: 400, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(true);
    // Holds stay in the process: nothing about them is written to the file.
    expect(readFromOutside('select * from holds')).toEqual([]);

    const settled = store.ledger.settle(settlement(hold, 150));
    const recorded = store.usage.recordUsage(usageRecord(accountId, 0));
    // Queued, not yet committed, yet already counted against the balance.
    expect(readFromOutside<{ n: number }>('select count(*) as n from usage_records')[0]?.n).toBe(0);
    expect(await store.ledger.placeHold({ ...hold, id: uniqueId('hold'), amount: 851 })).toBe(
      false,
    );
    await Promise.all([settled, recorded]);

    expect(
      readFromOutside('select balance, held from balances where account_id = ?', accountId),
    ).toEqual([{ balance: 850, held: 0 }]);
    expect(readFromOutside<{ n: number }>('select count(*) as n from usage_records')[0]?.n).toBe(2);
    expect(await store.ledger.getBalance(accountId)).toEqual({
      balance: 850,
      held: 0,
      available: 850,
    });
  });

  it('counts a grant made from another process at the next hold', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 100);
    const hold = { id: uniqueId('hold'), accountId, amount: 500, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(false);

    await entryFromOutside(accountId, 1_000, 'grant', 'operator grant');

    expect(await store.ledger.placeHold(hold)).toBe(true);
  });

  it('charges no more than the file holds when another process took credits after the hold', async () => {
    // The balance read at the hold is still trusted when the call settles.
    const store = await open({ knownBalanceMilliseconds: 60_000 });
    const accountId = await fundedAccount(store, 1_000);
    const hold = { id: uniqueId('hold'), accountId, amount: 400, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(true);

    // The operator takes 900 of the 1 000 from another process while the call runs.
    await entryFromOutside(accountId, -900, 'adjustment', 'operator correction');

    const charge = settlement(hold, 400);
    expect(await store.ledger.settle(charge)).toEqual({ charged: 100, shortfall: 300 });
    expect(readFromOutside('select balance from balances where account_id = ?', accountId)).toEqual(
      [{ balance: 0 }],
    );
    // The record is the charge's ledger entry: listed with what was charged, not the cost.
    const entries = await store.ledger.listEntries(accountId, 10);
    expect(entries.filter((entry) => entry.id === charge.id)).toEqual([
      expect.objectContaining({ amount: -100, kind: 'usage', reason: charge.reason }),
    ]);
    expect(
      readFromOutside(
        'select cost, shortfall from usage_records where settlement_id = ?',
        charge.id,
      ),
    ).toEqual([{ cost: 100, shortfall: 300 }]);
    // A retry of the same settlement reads what landed.
    expect(await store.ledger.settle(charge)).toEqual({ charged: 100, shortfall: 300 });
    // And the next hold counts from what the commit left.
    expect(await store.ledger.placeHold({ ...hold, id: uniqueId('hold'), amount: 1 })).toBe(false);
  });

  it('fails only the write that cannot be written and commits the rest of its group', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const good = store.usage.recordUsage(usageRecord(accountId, 1));
    const bad = store.usage.recordUsage(usageRecord(uniqueId('no-such-account'), 1));
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow(/FOREIGN KEY/);
    expect(await store.usage.listUsage(accountId, 10)).toHaveLength(1);
  });

  it('charges a call beyond its hold from a grant another process made while it ran', async () => {
    // The balance read at the hold is still trusted when the call settles.
    const store = await open({ knownBalanceMilliseconds: 60_000 });
    const accountId = await fundedAccount(store, 100);
    const hold = { id: uniqueId('hold'), accountId, amount: 100, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(true);

    await entryFromOutside(accountId, 1_000, 'grant', 'operator grant');

    // The call cost more than it held; the grant covers the rest, as a read of the row would.
    expect(await store.ledger.settle(settlement(hold, 150))).toEqual({
      charged: 150,
      shortfall: 0,
    });
    expect(readFromOutside('select balance from balances where account_id = ?', accountId)).toEqual(
      [{ balance: 950 }],
    );
  });

  it('charges each settlement in full when a failed group is retried write by write', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 600);
    const first = { id: uniqueId('hold'), accountId, amount: 300, expiresAt: Date.now() + 60_000 };
    const second = { ...first, id: uniqueId('hold') };
    expect(await store.ledger.placeHold(first)).toBe(true);
    expect(await store.ledger.placeHold(second)).toBe(true);

    // A bad write in the same group makes the group fail; each write is then committed alone.
    const bad = store.usage.recordUsage(usageRecord(uniqueId('no-such-account'), 0));
    const settled = [
      store.ledger.settle(settlement(first, 300)),
      store.ledger.settle(settlement(second, 300)),
    ];
    await expect(bad).rejects.toThrow(/FOREIGN KEY/);
    // The second alone sees the first one's charge in the row: its own, not another process's.
    expect(await Promise.all(settled)).toEqual([
      { charged: 300, shortfall: 0 },
      { charged: 300, shortfall: 0 },
    ]);
    expect(readFromOutside('select balance from balances where account_id = ?', accountId)).toEqual(
      [{ balance: 0 }],
    );
  });

  it("keeps the hourly rollups equal to a group commit's records across hours, keys and a capped charge", async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const hour = 3_600_000;
    const base = Math.floor(Date.now() / hour) * hour - 5 * hour;
    const at = (createdAt: number, changes: Partial<UsageRecord> = {}): UsageRecord => ({
      ...usageRecord(accountId, 7),
      createdAt,
      inputCacheReadTokens: 2,
      inputCacheWrite5mTokens: 3,
      inputCacheWrite1hTokens: 4,
      reasoningTokens: 1,
      ...changes,
    });
    // An earlier commit leaves a row the next one adds to.
    await store.usage.recordUsage(at(base + 10));

    const hold = { id: uniqueId('hold'), accountId, amount: 900, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(true);
    const settledAt = (createdAt: number): Settlement => {
      const call = settlement(hold, 5_000);
      return { ...call, record: { ...call.record, model: 'settled', createdAt } };
    };
    const group = [
      store.usage.recordUsage(at(base + 20)),
      store.usage.recordUsage(at(base + hour - 1, { outputTokens: 11 })),
      store.usage.recordUsage(at(base + hour, { model: 'other' })),
      store.usage.recordUsage(at(base + 30, { deployment: null })),
      store.usage.recordUsage(at(base + 40, { apiKeyId: 'another-key', cost: 0 })),
      // Costs more than the account has: the rollup sums what it charged, like the record.
      store.ledger.settle(settledAt(base + 50)),
    ];
    await Promise.all(group);
    const { rollups, sums } = rollupsAndRecordSums();
    expect(rollups).toEqual(sums);
    expect(rollups).toContainEqual({
      account_id: accountId,
      hour: base,
      api_key_id: 'key',
      model: 'model',
      deployment: 'provider/model',
      requests: 3,
      input_tokens: 30,
      input_cache_read_tokens: 2 * 3,
      cache_write_tokens: 7 * 3,
      output_tokens: 5 + 5 + 11,
      reasoning_tokens: 3,
      cost: 7 * 3,
    });
    expect(rollups).toContainEqual(
      expect.objectContaining({ hour: base, model: 'settled', requests: 1, cost: 1_000 }),
    );
  });

  it('keeps the rollups equal to the records when a failed group is retried write by write', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const writes = [
      store.usage.recordUsage(usageRecord(accountId, 3)),
      store.usage.recordUsage(usageRecord(uniqueId('no-such-account'), 1)),
      store.usage.recordUsage(usageRecord(accountId, 4)),
    ];
    const results = await Promise.allSettled(writes);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rollups, sums } = rollupsAndRecordSums();
    expect(rollups).toEqual(sums);
    expect(rollups).toMatchObject([{ account_id: accountId, requests: 2, cost: 7 }]);
  });

  it('adds to the rollups from another process writing through the durable store', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    await store.usage.recordUsage(usageRecord(accountId, 5));
    const cli = await openSqliteStore({ path: file });
    try {
      await cli.usage.recordUsage(usageRecord(accountId, 6));
      const hold = { id: uniqueId('hold'), accountId, amount: 100, expiresAt: Date.now() + 60_000 };
      expect(await cli.ledger.placeHold(hold)).toBe(true);
      expect(await cli.ledger.settle(settlement(hold, 40))).toEqual({ charged: 40, shortfall: 0 });
    } finally {
      await cli.close();
    }
    const { rollups, sums } = rollupsAndRecordSums();
    expect(rollups).toEqual(sums);
    expect(rollups).toMatchObject([{ account_id: accountId, requests: 3, cost: 5 + 6 + 40 }]);
  });

  it('commits a stored response in the group commit of the request path', async () => {
    const store = await open({ busyTimeoutMilliseconds: 0 });
    const accountId = await fundedAccount(store, 1_000);
    const response = (id: string): StoredResponse => ({
      id,
      accountId,
      model: 'model',
      createdAt: 0,
      expiresAt: Date.now() + 60_000,
      instructions: null,
      previousResponseId: null,
      input: [{ role: 'user', content: 'Hi' }],
      output: [{ id: `msg_${id}`, type: 'message', content: 'Hello' }],
    });
    const first = response(uniqueId('resp'));
    const second = { ...response(uniqueId('resp')), previousResponseId: first.id };
    const count = (table: string) =>
      readFromOutside<{ n: number }>(`select count(*) as n from ${table}`)[0]?.n;

    const saves = [
      store.responses.saveResponse(first),
      store.usage.recordUsage(usageRecord(accountId, 0)),
      store.responses.saveResponse(second),
      // The same id again: fails alone, the rest of its group is committed.
      store.responses.saveResponse({ ...first, model: 'impostor' }),
    ];
    // Queued with the usage record, not committed one by one.
    expect([count('responses'), count('usage_records')]).toEqual([0, 0]);
    const results = await Promise.allSettled(saves);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect([count('responses'), count('usage_records'), count('response_chains')]).toEqual([
      2, 1, 1,
    ]);
    expect(await store.responses.findResponseChain(second.id, accountId, 0, 10)).toEqual([
      first,
      second,
    ]);

    // A read made before the next commit still sees a queued response.
    const third = { ...response(uniqueId('resp')), previousResponseId: second.id };
    const saved = store.responses.saveResponse(third);
    expect(await store.responses.findResponseChain(third.id, accountId, 0, 10)).toEqual([
      first,
      second,
      third,
    ]);
    await saved;

    // Like a settlement, it waits in the queue while another process holds the write lock,
    // where a commit of its own would fail at once (busy timeout 0).
    const other = new BetterSqlite3(file);
    other.prepare('begin immediate').run();
    let done = false;
    const waiting = store.responses.saveResponse(response(uniqueId('resp'))).then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    other.prepare('commit').run();
    other.close();
    await waiting;
    expect(count('responses')).toBe(4);
  });

  it('commits an idempotent answer in the group commit and replays it from memory until then', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const scope = { accountId, operation: 'evaluation', key: uniqueId('key') };
    const now = Date.now();
    const claim = (claimId: string) =>
      store.idempotency.claim(scope, {
        fingerprint: 'fp',
        claimId,
        now,
        claimExpiresAt: now + 60_000,
      });
    const entries = () =>
      readFromOutside<{ state: string; body: string }>(
        'select state, body from idempotency_entries where key = ?',
        scope.key,
      );
    expect(await claim('first')).toEqual({ kind: 'claimed' });
    const answer = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    };

    const completed = store.idempotency.complete(scope, 'first', answer, now + 60_000);
    const recorded = store.usage.recordUsage(usageRecord(accountId, 0));
    // Queued with the usage record, not committed on its own; a retry already gets the answer.
    expect(entries()).toEqual([]);
    expect(await claim('retry')).toEqual({ kind: 'completed', fingerprint: 'fp', answer });
    await Promise.all([completed, recorded]);

    expect(entries()).toEqual([{ state: 'completed', body: '{"a":1}' }]);
    expect(readFromOutside<{ n: number }>('select count(*) as n from usage_records')[0]?.n).toBe(1);
    expect(await claim('later')).toEqual({ kind: 'completed', fingerprint: 'fp', answer });
  });

  it('gives a key claimed twice in one turn to one claim only, and finds rows written outside', async () => {
    const store = await open();
    const accountId = await fundedAccount(store, 1_000);
    const now = Date.now();
    const claimOf = (key: string, claimId: string, fingerprint = 'fp') =>
      store.idempotency.claim(
        { accountId, operation: 'evaluation', key },
        { fingerprint, claimId, now, claimExpiresAt: now + 60_000 },
      );
    const key = uniqueId('key');
    // Both reads wait for the same batch and find no row; only the first claim may take it.
    const outcomes = await Promise.all([claimOf(key, 'a'), claimOf(key, 'b', 'other')]);
    expect(outcomes).toEqual([
      { kind: 'claimed' },
      { kind: 'in_progress', fingerprint: 'fp', claimExpiresAt: now + 60_000 },
    ]);

    // A row another process wrote is found by a claim read in the batch.
    const written = uniqueId('key');
    const outside = new BetterSqlite3(file);
    outside
      .prepare(
        `insert into idempotency_entries (account_id, operation, key, fingerprint, claim_id,
           state, status, headers, body, created_at, expires_at)
         values (?, 'evaluation', ?, 'fp', 'c', 'completed', 200, '{}', '{"b":2}', ?, ?)`,
      )
      .run(accountId, written, now, now + 60_000);
    outside.close();
    expect(await claimOf(written, 'c')).toEqual({
      kind: 'completed',
      fingerprint: 'fp',
      answer: { status: 200, headers: {}, body: '{"b":2}' },
    });
  });

  it('keeps writes queued while another process holds the write lock, then commits them', async () => {
    const store = await open({ busyTimeoutMilliseconds: 0 });
    const accountId = await fundedAccount(store, 1_000);
    const hold = { id: uniqueId('hold'), accountId, amount: 300, expiresAt: Date.now() + 60_000 };
    expect(await store.ledger.placeHold(hold)).toBe(true);

    const other = new BetterSqlite3(file);
    other.prepare('begin immediate').run();
    let done = false;
    const settled = store.ledger.settle(settlement(hold, 200)).then((result) => {
      done = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    // Still counted while it waits: 1 000 − 200 leaves 800.
    expect(await store.ledger.placeHold({ ...hold, id: uniqueId('hold'), amount: 801 })).toBe(
      false,
    );
    other.prepare('commit').run();
    other.close();

    expect(await settled).toEqual({ charged: 200, shortfall: 0 });
    expect(await store.ledger.getBalance(accountId)).toMatchObject({ balance: 800, held: 0 });
  });
});
