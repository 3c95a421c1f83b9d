/**
 * `npm run bench:scale-out [-- --processes=N] [--store=postgres|sqlite] [--seconds=S]
 * [--accounts=A] [--tokens=T]`
 *
 * What one call of the scale-out set asks of each engine (docs/deployment.md, "From 3 to 100
 * nodes"; docs/performance.md, "Scale-out"): N gateway processes started from
 * deploy/switchyard.config.json by the scale-out suite's harness (a PostgreSQL database of the
 * run, this machine's Redis, s3rver, fake upstreams in this process) behind one port (a TCP
 * balancer here that hands each connection to the next process), loaded with chat completions
 * JSON by autocannon over T tokens of A accounts for S seconds after a 3 s warm-up.
 * `--store=sqlite` runs one process on the embedded store instead, limits and routing state in
 * the process. Prints one JSON line: calls per second, latency,
 * the gateways' CPU per call (from /proc), Redis commands and PostgreSQL transactions per call,
 * and the usage table's bytes per row. Needs PostgreSQL and Redis as the tests do.
 */
import { connect, createServer, type AddressInfo, type Server } from 'node:net';

import autocannon from 'autocannon';
import pg from 'pg';

import { cpuMicros } from './lib/bench-process.ts';
import { postgresConnectionString } from '../test/support/isolated-test-stores.ts';
import { startScaleOutSet } from '../test/scale-out/scale-out-set.ts';

function option(name: string, fallback: number): number {
  const given = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
}

const processes = option('processes', 1);
const store = process.argv.includes('--store=sqlite') ? 'sqlite' : 'postgres';
const seconds = option('seconds', 10);
const accountCount = option('accounts', 100);
// The example allows 60 calls a minute per token: enough tokens that none runs out.
const tokenCount = option('tokens', 200);

/** One port in front of the processes: each new connection goes to the next one in turn. */
async function startBalancer(ports: number[]): Promise<{ server: Server; url: string }> {
  let turn = 0;
  const server = createServer((client) => {
    turn += 1;
    const backend = connect(ports[turn % ports.length] as number, '127.0.0.1');
    client.pipe(backend).pipe(client);
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const set = await startScaleOutSet(processes, { store });
const balancer = await startBalancer(
  set.gateways.map((gateway) => Number(new URL(gateway.url).port)),
);
try {
  const accounts: string[] = [];
  for (let index = 0; index < accountCount; index += 1) {
    const account = await set.operator.createAccount({ name: `bench ${index}`, isAdmin: false });
    await set.operator.changeCredits({
      accountId: account.id,
      amount: 1_000_000_000_000,
      reason: 'bench grant',
      kind: 'grant',
    });
    accounts.push(account.id);
  }
  const tokens: string[] = [];
  for (let index = 0; index < tokenCount; index += 1) {
    const created = await set.operator.createToken({
      accountId: accounts[index % accounts.length] as string,
      name: `bench ${index}`,
      expiresAt: null,
      allowedModels: null,
    });
    tokens.push(created.token);
  }
  const body = JSON.stringify({
    model: 'gpt-4.1-mini',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const load = (duration: number) => {
    let turn = 0;
    return autocannon({
      url: balancer.url,
      connections: 32,
      duration,
      requests: [
        {
          method: 'POST',
          path: '/v1/chat/completions',
          setupRequest: (request: Record<string, unknown>) => {
            turn += 1;
            return {
              ...request,
              body,
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${tokens[turn % tokens.length]}`,
              },
            };
          },
        },
      ],
    });
  };
  await load(3);

  const admin = new pg.Client({ connectionString: postgresConnectionString });
  await admin.connect();
  const transactions = async () =>
    store === 'sqlite'
      ? 0
      : Number(
          (
            await admin.query<{ count: string }>(
              `select (xact_commit + xact_rollback)::text as count from pg_stat_database
           where datname = $1`,
              [set.databaseName],
            )
          ).rows[0]?.count,
        );
  const redisCommands = async () =>
    Number(/total_commands_processed:(\d+)/.exec(await set.redis.info('stats'))?.[1]);
  const pids = set.gateways.map((gateway) => gateway.pid as number);
  const before = {
    cpu: pids.reduce((sum, pid) => sum + cpuMicros(pid), 0),
    transactions: await transactions(),
    redis: await redisCommands(),
  };
  const result = await load(seconds);
  const calls = result['2xx'];
  const after = {
    cpu: pids.reduce((sum, pid) => sum + cpuMicros(pid), 0),
    transactions: await transactions(),
    redis: await redisCommands(),
  };
  await admin.end();
  const usage = await set.usageTableSize();
  console.log(
    JSON.stringify({
      processes,
      store,
      seconds,
      accounts: accountCount,
      tokens: tokenCount,
      calls,
      failed: result.non2xx + result.errors,
      callsPerSecond: Math.round(calls / seconds),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
      gatewayCpuMicrosPerCall: Math.round((after.cpu - before.cpu) / calls),
      redisCommandsPerCall: Number(((after.redis - before.redis) / calls).toFixed(2)),
      postgresTransactionsPerCall: Number(
        ((after.transactions - before.transactions) / calls).toFixed(2),
      ),
      usageBytesPerRow: Math.round(usage.bytes / usage.rows),
    }),
  );
} finally {
  balancer.server.close();
  await set.close();
}
