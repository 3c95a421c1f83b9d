import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { composeGateway, type Gateway } from '../../src/compose.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import { testModel } from '../support/test-gateway.ts';

/**
 * docs/decisions/0017: the charge and its usage record are one write; when the
 * store cannot take it at the end of a stream the client's answer still ends cleanly, the
 * settlement waits on disk, and it lands exactly once — on a retry, or after a restart.
 */
describe('a store fault at settle time', () => {
  let upstream: FakeUpstream;
  let dataDir: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-settle-'));
  });
  afterAll(async () => {
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const config = () =>
    parseConfig({
      dataDir,
      providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
      models: [testModel('claude', 'anthropic')],
    });
  const start = () => composeGateway(config(), { env: { ...process.env } });

  /** Another connection to the gateway's file, as an operator's sqlite3 shell would be. */
  function onFile<T>(use: (connection: BetterSqlite3.Database) => T): T {
    const connection = new BetterSqlite3(path.join(dataDir, 'switchyard.sqlite'));
    try {
      return use(connection);
    } finally {
      connection.close();
    }
  }

  const countRows = (table: string, accountId: string) =>
    onFile(
      (connection) =>
        (
          connection
            .prepare(`select count(*) as n from ${table} where account_id = ?`)
            .get(accountId) as { n: number }
        ).n,
    );

  it('ends the stream cleanly, writes neither half, and lands the settlement once after a restart', async () => {
    let gateway: Gateway = await start();
    const account = await gateway.operator.createAccount({ name: 'fault', isAdmin: false });
    await gateway.operator.changeCredits({
      accountId: account.id,
      amount: 10_000_000,
      reason: 'test',
      kind: 'grant',
    });
    const { token } = await gateway.operator.createToken({
      accountId: account.id,
      name: 'fault',
      expiresAt: null,
      allowedModels: null,
    });
    // The usage record cannot be written: the charge in the same transaction must not be either.
    onFile((connection) =>
      connection.exec(
        `create trigger refuse_usage before insert on usage_records
         begin select raise(abort, 'usage records are refused'); end`,
      ),
    );
    upstream.enqueue({ output: [{ text: 'the whole answer' }], usage: { input: 20, output: 10 } });
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': token },
      payload: {
        model: 'claude',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      },
    });
    expect(response.statusCode).toBe(200);
    const events = parseServerSentEvents(response.body);
    expect(events.at(-1)?.event).toBe('message_stop');
    const text = events
      .map((event) => JSON.parse(event.data) as { delta?: { text?: string } })
      .map((data) => data.delta?.text ?? '')
      .join('');
    expect(text).toBe('the whole answer');

    // Neither half was written, and the settlement waits on disk.
    expect(countRows('usage_records', account.id)).toBe(0);
    expect(countRows('ledger_entries', account.id)).toBe(1);
    expect(await readdir(path.join(dataDir, 'settlements'))).toHaveLength(1);
    expect(await gateway.store.ledger.getBalance(account.id)).toMatchObject({
      balance: 10_000_000,
      held: 0,
    });

    // A restart while the store still refuses keeps it; once the store takes it, it lands.
    await gateway.close();
    gateway = await start();
    expect(countRows('usage_records', account.id)).toBe(0);
    await gateway.close();
    onFile((connection) => connection.exec('drop trigger refuse_usage'));
    gateway = await start();
    try {
      const price = 20 * 3 + 10 * 15;
      const [record] = await gateway.store.usage.listUsage(account.id, 10);
      expect(record).toMatchObject({
        cost: price,
        inputTokens: 20,
        outputTokens: 10,
        shortfall: 0,
      });
      expect(countRows('usage_records', account.id)).toBe(1);
      // The grant and the usage charge, which the record carries (docs/decisions/0093).
      expect(await gateway.store.ledger.listEntries(account.id, 10)).toEqual([
        expect.objectContaining({ kind: 'usage', amount: -price }),
        expect.objectContaining({ kind: 'grant', amount: 10_000_000 }),
      ]);
      expect(await gateway.store.ledger.getBalance(account.id)).toEqual({
        balance: 10_000_000 - price,
        held: 0,
        available: 10_000_000 - price,
      });
      expect(await readdir(path.join(dataDir, 'settlements'))).toEqual([]);
    } finally {
      await gateway.close();
    }
    // Started again: the replayed settlement is not charged twice.
    gateway = await start();
    try {
      expect(countRows('usage_records', account.id)).toBe(1);
      expect((await gateway.store.ledger.getBalance(account.id)).balance).toBe(
        10_000_000 - (20 * 3 + 10 * 15),
      );
    } finally {
      await gateway.close();
    }
  });
});
