/**
 * `npm run bench:instructions -- --only=chat-sse[,…] [--base=<other checkout>] [--requests=2000]
 * [--warmup=8000] [--connections=8] [--gateway-node-args="--flag"]`
 *
 * Instructions per request of the gateway, counted by valgrind's callgrind (Debian package
 * `valgrind`): a count, not a time, so it repeats to a few percent where the shared machine's
 * CPU times differ by tens (docs/performance.md). The gateway runs under callgrind with
 * instrumentation off while `--warmup` requests let V8 compile the hot code, then on for exactly
 * `--requests` requests sent by this process (its own cost is not counted). With `--base`, the
 * other checkout's gateway is counted the same way after this one, scenario by scenario.
 *
 * What it cannot see: the kernel's work (system calls, the network), which the load benchmark
 * does see, and the real cost of a cache miss. It decides between code changes that move
 * instructions; `npm run bench` stays the record of CPU and memory.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Pool } from 'undici';

import { stopAll, stopProcess } from './lib/bench-process.ts';
import { buildScenarios, type Scenario } from './lib/bench-scenarios.ts';
import { endpoint, removeDataDir, startScriptCommand, startTargets } from './lib/bench-targets.ts';

const argv = process.argv.slice(2);
const option = (name: string) =>
  argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const requests = Number(option('requests') ?? 2000);
const warmup = Number(option('warmup') ?? 8000);
const connections = Number(option('connections') ?? 8);
const extraNodeArgs = (option('gateway-node-args') ?? '').split(/\s+/).filter(Boolean);
const only = option('only')?.split(',');
const roots = [resolve('.'), ...(option('base') === undefined ? [] : [resolve(option('base')!)])];

function hasCallgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Sends `count` requests of the scenario, `connections` at a time; any other status throws. */
async function send(
  pool: Pool,
  scenario: Scenario,
  headers: Record<string, string>,
  count: number,
) {
  let sent = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (sent < count) {
        sent += 1;
        const fresh =
          scenario.freshHeader === undefined
            ? headers
            : {
                ...headers,
                [scenario.freshHeader]: `instructions-${process.pid}-${sent}-${Math.random()}`,
              };
        const answer = await pool.request({
          path: scenario.path,
          method: 'POST',
          headers: fresh,
          body: scenario.body,
        });
        const text = await answer.body.text();
        if (answer.statusCode !== 200)
          throw new Error(`${scenario.id}: ${answer.statusCode} ${text.slice(0, 300)}`);
      }
    }),
  );
}

/** The total of a callgrind output file and its parts (`totals:` or `summary:` lines). */
function countedInstructions(outputFile: string): number {
  let total = 0;
  const directory = tmpdir();
  const base = outputFile.slice(directory.length + 1);
  for (const name of readdirSync(directory).filter((file) => file.startsWith(base))) {
    const text = readFileSync(join(directory, name), 'utf8');
    for (const match of text.matchAll(/^(?:summary|totals): (\d+)/gm))
      total = Math.max(total, Number(match[1]));
    rmSync(join(directory, name), { force: true });
  }
  return total;
}

async function count(root: string, scenario: Scenario): Promise<number> {
  const targets = await startTargets(root, { withPeer: false, upstreamWrites: 'one' });
  let gateway: ReturnType<typeof spawn> | undefined;
  try {
    const { url, headers } = endpoint(targets, 'gateway', scenario);
    const port = targets.gateway.port;
    // The bench started the gateway as `npm start` does; this one runs the same under callgrind.
    await stopProcess(targets.gateway);
    const start = startScriptCommand(root);
    const outputFile = join(tmpdir(), `switchyard-callgrind-${process.pid}-${Date.now()}.out`);
    gateway = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${outputFile}`,
        process.execPath,
        ...start.nodeArgs,
        ...extraNodeArgs,
        'dist/main.js',
      ],
      {
        cwd: root,
        env: { ...process.env, ...start.env, ...targets.gatewayEnv, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    gateway.stderr?.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
    );
    const pool = new Pool(new URL(url).origin, { connections });
    for (let attempt = 0; ; attempt += 1) {
      try {
        const answer = await pool.request({ path: '/healthz', method: 'GET' });
        await answer.body.text();
        break;
      } catch {
        if (attempt > 600 || gateway.exitCode !== null)
          throw new Error(`gateway under callgrind: ${stderr}`);
        await new Promise((resolve_) => setTimeout(resolve_, 200));
      }
    }
    await send(pool, scenario, headers, warmup);
    const pid = String(gateway.pid);
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    await send(pool, scenario, headers, requests);
    execFileSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    await pool.close();
    gateway.kill('SIGTERM');
    await new Promise((resolve_) => gateway?.once('exit', resolve_));
    return countedInstructions(outputFile) / requests;
  } finally {
    if (gateway !== undefined && gateway.exitCode === null && gateway.signalCode === null) {
      gateway.kill('SIGKILL');
    }
    await stopAll();
    removeDataDir(targets);
  }
}

if (!hasCallgrind()) {
  console.error('bench:instructions needs valgrind: apt-get install -y valgrind');
  process.exit(1);
}
const scenarios = buildScenarios(false).filter(
  (scenario) => !scenario.slow && (only === undefined || only.includes(scenario.id)),
);
console.log(
  `instructions per request under callgrind: ${requests} requests after ${warmup} warm-up, ${connections} connections`,
);
for (const scenario of scenarios) {
  const counted: number[] = [];
  for (const root of roots) {
    const perRequest = await count(root, scenario);
    counted.push(perRequest);
    console.log(
      `${scenario.id.padEnd(22)} ${root === roots[0] ? 'this' : 'base'}  ${(perRequest / 1000).toFixed(1)}k`,
    );
  }
  if (counted.length === 2) {
    console.log(`${scenario.id.padEnd(22)} this/base ${(counted[0]! / counted[1]!).toFixed(3)}`);
  }
}
