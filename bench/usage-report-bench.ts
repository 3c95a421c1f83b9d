/**
 * Times the usage reports over a month of one busy account: `RECORDS` usage records (1 M unless
 * the environment says otherwise) spread evenly over 30 days and 50 tokens, each token on one of
 * 8 models served by two of 12 deployments, on a fresh SQLite file and on a fresh PostgreSQL
 * database that is dropped afterwards. The hourly rollups are kept by their trigger as the
 * records load, as in the gateway.
 *
 *   node --import tsx bench/usage-report-bench.ts
 *   RECORDS=200000 POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/usage-report-bench.ts
 *
 * The records are generated inside the database (a recursive CTE on SQLite, generate_series on
 * PostgreSQL) so the load takes seconds; each query then runs five times and the median is shown.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import type {
  UsageFilter,
  UsageGroupKey,
  UsageRequestQuery,
} from '../src/generation/usage-store.ts';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.ts';
import { openSqliteStore } from '../src/store/sqlite/open-sqlite-store.ts';
import type { Store } from '../src/store/store.ts';

const records = Number(process.env.RECORDS ?? 1_000_000);
const postgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const day = 86_400_000;
const monthStart = Date.UTC(2026, 0, 1);
const monthEnd = monthStart + 30 * day;
const accountId = 'acct_bench_busy';

/** Columns of one generated record as SQL over the row number `g`, portable to both dialects. */
function generatedRow(g: string): string {
  return `'req_' || ${g}, '${accountId}', 'key_' || (${g} % 50), 'chat', 'model_' || (${g} % 50 % 8),
    'provider/upstream_' || ((${g} % 50 % 8 + ${g} % 2 * 4) % 12), 500 + ${g} % 3000, ${g} % 700, 0, 0, 40 + ${g} % 900, 0,
    1000 + ${g} % 20000, 0, 'set_' || ${g}, 'chat model', 300 + ${g} % 5000, 100 + ${g} % 800,
    case when ${g} % 50 = 0 then 'upstream_error' else 'ok' end,
    case when ${g} % 50 = 0 then 502 else 200 end,
    ${monthStart} + (${g} * ${Math.floor((30 * day) / records)})`;
}

const columns = `request_id, account_id, api_key_id, surface, model, deployment, input_tokens,
  input_cache_read_tokens, input_cache_write_5m_tokens, input_cache_write_1h_tokens, output_tokens,
  reasoning_tokens, cost, shortfall, settlement_id, charge_reason, latency_ms, first_token_ms,
  outcome, status, created_at`;

async function median(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((left, right) => left - right)[2] as number;
}

async function timeQueries(store: Store): Promise<Array<[string, number]>> {
  const month: UsageFilter = { accountId, from: monthStart, to: monthEnd };
  const report =
    (groupBy: UsageGroupKey[], filter: UsageFilter = month) =>
    () =>
      store.usage.summarizeUsage(filter, groupBy);
  const page = (query: Partial<UsageRequestQuery>) => () =>
    store.usage.listRequests({ ...month, limit: 50, ...query });
  // A cursor 10 pages in, as a client reaches it.
  let deep = await store.usage.listRequests({ ...month, limit: 50 });
  for (let index = 0; index < 9 && deep.next !== undefined; index += 1) {
    deep = await store.usage.listRequests({ ...month, limit: 50, after: deep.next });
  }
  const lastDay: UsageFilter = { ...month, from: monthEnd - day };
  return [
    ['totals, month', await median(report([]))],
    ['by model and day, month', await median(report(['model', 'day']))],
    ['by token, month', await median(report(['token']))],
    ['by hour, month', await median(report(['hour']))],
    ['by deployment, last day', await median(report(['deployment'], lastDay))],
    ['one token by day, month', await median(report(['day'], { ...month, apiKeyId: 'key_7' }))],
    [
      'every account by token, month',
      await median(report(['token'], { from: monthStart, to: monthEnd })),
    ],
    ['request log, first page of 50', await median(page({}))],
    ['request log, 11th page by cursor', await median(page(deep.next ? { after: deep.next } : {}))],
    ['request log, status 502, first page', await median(page({ status: 502 }))],
    [
      "one token's spend, month (budget)",
      await median(() => store.usage.spentByToken('key_7', monthStart)),
    ],
  ];
}

async function benchSqlite(): Promise<Array<[string, number]>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-usage-bench-'));
  const store = await openSqliteStore({ path: path.join(folder, 'bench.sqlite') });
  try {
    await store.accounts.createAccount({
      id: accountId,
      name: 'busy',
      isAdmin: false,
      createdAt: 0,
    });
    const BetterSqlite3 = (await import('better-sqlite3')).default;
    const connection = new BetterSqlite3(path.join(folder, 'bench.sqlite'));
    const started = performance.now();
    connection.exec(`with recursive g(n) as (select 1 union all select n + 1 from g where n < ${records})
      insert into usage_records (${columns}) select ${generatedRow('n')} from g`);
    connection.exec('analyze');
    connection.close();
    console.log(
      `sqlite: loaded ${records} records in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return await timeQueries(store);
  } finally {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<Array<[string, number]>> {
  const database = `switchyard_usage_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  try {
    const store = await openPostgresStore({ connectionString: url.toString() });
    try {
      await store.accounts.createAccount({
        id: accountId,
        name: 'busy',
        isAdmin: false,
        createdAt: 0,
      });
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      const started = performance.now();
      await client
        .query(
          `insert into usage_records (${columns})
        select ${generatedRow('cast(g as bigint)')} from generate_series(1, ${records}) as g`,
        )
        .then(() => client.query('vacuum analyze usage_records, usage_rollups'))
        .finally(() => client.end());
      console.log(
        `postgres: loaded ${records} records in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      return await timeQueries(store);
    } finally {
      await store.close();
    }
  } finally {
    await admin.query(`drop database if exists ${database}`);
    await admin.end();
  }
}

const sqlite = await benchSqlite();
const postgres = await benchPostgres();
console.log(`\n| query (${records.toLocaleString('en')} records) | SQLite ms | PostgreSQL ms |`);
console.log('| --- | ---: | ---: |');
for (const [index, [name, time]] of sqlite.entries()) {
  console.log(
    `| ${name} | ${time.toFixed(1)} | ${(postgres[index]?.[1] ?? Number.NaN).toFixed(1)} |`,
  );
}
