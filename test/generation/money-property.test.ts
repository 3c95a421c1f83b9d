import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import fc from 'fast-check';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsage, toPriceTable } from '../../src/billing/price-table.ts';
import { usageFromParts } from '../../src/canonical/usage.ts';
import { OperatorService } from '../../src/operator/operator-service.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  startFakeUpstream,
  type FakeReply,
  type FakeUpstream,
  type RecordedRequest,
} from '../fake-upstream/fake-upstream-server.ts';
import { grantFundedToken } from '../support/grant-funded-token.ts';
import { spawnGatewayChildren, type GatewayChildren } from '../support/spawn-gateway-children.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

/**
 * docs/decisions/0015, 0017: whatever the prompt, the requested output limit and the usage the
 * upstream reports (above what was asked included), no balance goes below zero through client
 * traffic, and the ledger, the usage records and the shortfalls add up: every call is charged its
 * price or, past what the hold and the balance cover, records the rest as its shortfall.
 */

const providers = ['anthropic', 'chat', 'responses'] as const;
const routes = {
  messages: (model: string, prompt: string, limit: number) => ({
    url: '/v1/messages',
    body: { model, max_tokens: limit, messages: [{ role: 'user', content: prompt }] },
  }),
  chat: (model: string, prompt: string, limit: number) => ({
    url: '/v1/chat/completions',
    body: { model, max_tokens: limit, messages: [{ role: 'user', content: prompt }] },
  }),
  responses: (model: string, prompt: string, limit: number) => ({
    url: '/v1/responses',
    body: { model, max_output_tokens: limit, input: prompt },
  }),
};
const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };
const prices = toPriceTable(pricing);
const models = providers.map((provider) =>
  testModel(`via-${provider}`, provider, { maxOutputTokens: 4_096, pricing }),
);

/** The upstream reports the usage the prompt asks for: `usage <input> <output>`. */
function scriptedReply(recorded: RecordedRequest): FakeReply {
  const match = /usage (\d+) (\d+)/.exec(recorded.rawBody);
  const input = Number(match?.[1] ?? 1);
  const output = Number(match?.[2] ?? 1);
  return { output: [{ text: 'ok' }], usage: { input, output } };
}

const call = fc.record({
  route: fc.constantFrom(...(Object.keys(routes) as Array<keyof typeof routes>)),
  provider: fc.constantFrom(...providers),
  padding: fc.string({ unit: 'grapheme', maxLength: 300 }),
  // 16 and up: the responses dialect refuses smaller limits (a 400, not a money question).
  limit: fc.integer({ min: 16, max: 100_000 }),
  input: fc.integer({ min: 1, max: 200_000 }),
  // Up to far beyond any limit asked: a misbehaving or lying upstream.
  output: fc.integer({ min: 0, max: 500_000 }),
});
const scenario = fc.record({
  credits: fc.integer({ min: 1, max: 3_000_000 }),
  calls: fc.array(call, { minLength: 1, maxLength: 8 }),
});

interface Target {
  send(index: number, url: string, token: string, body: object): Promise<number>;
  store: Store;
  operator: OperatorService;
}

/** Runs one generated scenario and checks the money invariants. */
async function checkScenario(
  target: Target,
  upstream: FakeUpstream,
  {
    credits,
    calls,
  }: { credits: number; calls: Array<typeof call extends fc.Arbitrary<infer T> ? T : never> },
): Promise<void> {
  const { accountId, token } = await grantFundedToken(target.operator, {
    name: 'property',
    credits,
  });
  upstream.enqueue(...calls.map(() => scriptedReply));
  const statuses = await Promise.all(
    calls.map((item, index) => {
      const prompt = `usage ${item.input} ${item.output} ${item.padding}`;
      const { url, body } = routes[item.route](`via-${item.provider}`, prompt, item.limit);
      return target.send(index, url, token, body);
    }),
  );
  for (const status of statuses) expect([200, 402]).toContain(status);

  const balance = await target.store.ledger.getBalance(accountId);
  expect(balance.balance).toBeGreaterThanOrEqual(0);
  expect(balance.held).toBe(0);
  const records = (await target.store.usage.listUsage(accountId, 100)).filter(
    (record) => record.outcome !== 'refused',
  );
  expect(records).toHaveLength(statuses.filter((status) => status === 200).length);
  const charged = records.reduce((sum, record) => sum + record.cost, 0);
  expect(balance.balance).toBe(credits - charged);
  const entries = await target.store.ledger.listEntries(accountId, 100);
  expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance.balance);
  for (const record of records) {
    const price = priceUsage(
      usageFromParts({ noCache: record.inputTokens, output: record.outputTokens }),
      prices,
    );
    expect(record.cost + record.shortfall).toBe(price);
  }
  // Drain replies of refused calls, so the next run starts with an empty script.
  upstream.reset();
}

describe('money invariants under random traffic: no negative balance, every charge accounted', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(async () => upstream.close());

  it('on SQLite, no balance goes below zero and ledger, records and shortfalls agree', async () => {
    const gateway: TestGateway = await startTestGateway({
      providers: Object.fromEntries(
        providers.map((provider) => [
          provider,
          {
            kind: provider === 'anthropic' ? 'anthropic' : `openai-${provider}`,
            baseUrl: upstream.url,
          },
        ]),
      ),
      models,
    });
    try {
      const target: Target = {
        store: gateway.store,
        operator: gateway.operator,
        send: async (_index, url, token, body) =>
          (
            await gateway.app.inject({
              method: 'POST',
              url,
              headers: { 'x-api-key': token },
              payload: body,
            })
          ).statusCode,
      };
      await fc.assert(
        fc.asyncProperty(scenario, (generated) => checkScenario(target, upstream, generated)),
        { numRuns: 40 },
      );
    } finally {
      await gateway.close();
    }
  }, 120_000);
});

const connectionString =
  process.env.SWITCHYARD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const ciRequiresPostgres = (process.env.CI ?? 'false') !== 'false' && process.env.CI !== '';
const withPostgres = ciRequiresPostgres || (await postgresAnswers());

describe.runIf(withPostgres)(
  'money invariants across three gateway processes on PostgreSQL',
  () => {
    const schema = `switchyard_money_${randomUUID().replaceAll('-', '')}`;
    const schemaUrl = `${connectionString}${connectionString.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    let upstream: FakeUpstream;
    let store: Store;
    let folder: string;
    let children: GatewayChildren | undefined;

    beforeAll(async () => {
      upstream = await startFakeUpstream();
      folder = await mkdtemp(path.join(tmpdir(), 'switchyard-money-'));
      // Creates the schema and its tables before the gateways start.
      store = await openPostgresStore({ connectionString, schema });
      children = await spawnGatewayChildren(
        [0, 1, 2].map((index) => ({
          dataDir: path.join(folder, `gateway-${index}`),
          store: { backend: 'postgres', postgresUrl: schemaUrl },
          providers: Object.fromEntries(
            providers.map((provider) => [
              provider,
              {
                kind: provider === 'anthropic' ? 'anthropic' : `openai-${provider}`,
                baseUrl: upstream.url,
              },
            ]),
          ),
          models,
        })),
      );
    }, 120_000);

    afterAll(async () => {
      await children?.close();
      await store?.close();
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
      await upstream?.close();
      await rm(folder, { recursive: true, force: true });
    });

    it('no balance goes below zero and ledger, records and shortfalls agree', async () => {
      const target: Target = {
        store,
        operator: new OperatorService(store),
        send: async (index, url, token, body) => {
          const addresses = children?.addresses ?? [];
          const response = await request(`${addresses[index % addresses.length]}${url}`, {
            method: 'POST',
            headers: { 'x-api-key': token, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await response.body.text();
          return response.statusCode;
        },
      };
      await fc.assert(
        fc.asyncProperty(scenario, (generated) => checkScenario(target, upstream, generated)),
        { numRuns: 25 },
      );
    }, 180_000);
  },
);
