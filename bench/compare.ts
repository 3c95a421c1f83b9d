/**
 * `npm run bench:compare -- --base=<other checkout> [--only=large-body-sse] [--slices=8]
 * [--connections=8]`
 *
 * A paired A/B of two builds: this checkout's gateway and the one in `--base` (another clone or
 * `git worktree`, with its own node_modules or a link to these) run side by side, each with its
 * own mock and floor, and wrk (or autocannon where wrk is missing) loads both at the same time in slices of 3 s. Both see the
 * same noise of a shared machine, so the ratio of their CPU per request, slice by slice, holds
 * to a few percent where two separate runs differ by tens of percent (docs/performance.md). A
 * distribution-free interval of the median ratio says whether the slices tell a change from noise.
 * The gateways run with the start script's flags plus `--trace-gc-nvp`, and the young- and
 * old-generation pauses per request, the bytes each young collection promoted and the peak RSS
 * of each slice are reported beside the CPU. The full run stays the record; this is for deciding
 * whether a change helps.
 */
import { resolve } from 'node:path';
import { measureLoad } from './lib/bench-load.ts';
import { medianInterval } from './lib/median-interval.ts';
import { hasWrk } from './lib/run-wrk.ts';
import { stopAll } from './lib/bench-process.ts';
import { buildScenarios } from './lib/bench-scenarios.ts';
import {
  endpoint,
  removeDataDir,
  startScriptCommand,
  startTargets,
  type BenchTargets,
} from './lib/bench-targets.ts';

const argv = process.argv.slice(2);
const option = (name: string) =>
  argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const SLICE_SECONDS = 3;
const generator = hasWrk() ? 'wrk' : 'autocannon';

interface GcPauses {
  scavengeMs: number;
  markCompactMs: number;
  scavenges: number;
  promotedBytes: number;
}

interface Build {
  name: string;
  targets: BenchTargets;
  gc: GcPauses;
  cpuMicrosPerRequest: number[];
  scavengeMicrosPerRequest: number[];
  markCompactMicrosPerRequest: number[];
  promotedKbPerScavenge: number[];
  peakRssMb: number[];
}

/**
 * Adds up what `--trace-gc-nvp` prints, one line a collection ("… pause=2.19 … gc=s …
 * promoted=130608 …"): the pauses of young (`gc=s`) and full collections, and the bytes each
 * young collection promoted. A process that promotes several times what the other build does is
 * in a slow state for its life (docs/decisions/0179): its ratio is the process, not the code.
 */
function countGcPauses(targets: BenchTargets): GcPauses {
  const gc = { scavengeMs: 0, markCompactMs: 0, scavenges: 0, promotedBytes: 0 };
  let partial = '';
  targets.gateway.child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const kind = /\bgc=(\w+)/.exec(line)?.[1];
      const pause = /\bpause=([\d.]+)/.exec(line)?.[1];
      if (kind === undefined || pause === undefined) continue;
      if (kind !== 's') {
        gc.markCompactMs += Number(pause);
        continue;
      }
      gc.scavengeMs += Number(pause);
      gc.scavenges += 1;
      gc.promotedBytes += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
    }
  });
  return gc;
}

async function startBuild(name: string, root: string, scenarioId: string): Promise<Build> {
  const targets = await startTargets(root, {
    routedModel: scenarioId === 'chat-json-routed',
    withPeer: false,
    upstreamWrites: 'one',
    gatewayNodeArgs: [...startScriptCommand(root).nodeArgs, '--trace-gc-nvp'],
  });
  return {
    name,
    targets,
    gc: countGcPauses(targets),
    cpuMicrosPerRequest: [],
    scavengeMicrosPerRequest: [],
    markCompactMicrosPerRequest: [],
    promotedKbPerScavenge: [],
    peakRssMb: [],
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const base = option('base');
  if (base === undefined)
    throw new Error('bench:compare needs --base=<path of the other checkout>');
  const scenarioId = option('only') ?? 'large-body-sse';
  const scenario = buildScenarios(false).find((candidate) => candidate.id === scenarioId);
  if (scenario === undefined) throw new Error(`bench:compare: no scenario "${scenarioId}"`);
  const slices = Number(option('slices') ?? 8);
  const connections = Number(option('connections') ?? 8);

  const builds = [
    await startBuild('base', resolve(base), scenarioId),
    await startBuild('this', resolve(import.meta.dirname, '..'), scenarioId),
  ];
  try {
    const slice = async (build: Build, record: boolean) => {
      const { process: gateway, url, headers } = endpoint(build.targets, 'gateway', scenario);
      Object.assign(build.gc, { scavengeMs: 0, markCompactMs: 0, scavenges: 0, promotedBytes: 0 });
      const measured = await measureLoad({
        generator,
        pid: gateway.pid,
        url,
        headers,
        body: scenario.body,
        connections,
        durationSeconds: SLICE_SECONDS,
        warmupSeconds: 0,
        latencySeconds: 0,
        // An evaluation needs a new idempotency key each time, or it measures replays.
        ...(scenario.freshHeader === undefined ? {} : { freshHeader: scenario.freshHeader }),
      });
      if (!record) return;
      build.cpuMicrosPerRequest.push(measured.cpuMicrosPerRequest);
      build.scavengeMicrosPerRequest.push((build.gc.scavengeMs * 1000) / measured.requests);
      build.markCompactMicrosPerRequest.push((build.gc.markCompactMs * 1000) / measured.requests);
      if (build.gc.scavenges > 0)
        build.promotedKbPerScavenge.push(build.gc.promotedBytes / build.gc.scavenges / 1024);
      build.peakRssMb.push(measured.peakRssMb);
    };
    // Warm-up: the JIT and the heap settle in the first slices of each gateway.
    for (let index = 0; index < 2; index++) await Promise.all(builds.map((b) => slice(b, false)));
    for (let index = 0; index < slices; index++) {
      await Promise.all(builds.map((build) => slice(build, true)));
    }
  } finally {
    for (const build of builds) removeDataDir(build.targets);
    await stopAll();
  }

  const [before, after] = builds as [Build, Build];
  console.log(
    `${scenario.id}, ${slices} slices of ${SLICE_SECONDS} s, ${connections} connections each, load from ${generator}`,
  );
  for (const build of builds) {
    console.log(
      `${build.name.padEnd(5)} CPU µs/request median ${median(build.cpuMicrosPerRequest).toFixed(0)}` +
        ` (${build.cpuMicrosPerRequest.map((value) => value.toFixed(0)).join(' ')});` +
        ` GC pause µs/request: young ${median(build.scavengeMicrosPerRequest).toFixed(0)},` +
        ` old ${median(build.markCompactMicrosPerRequest).toFixed(0)};` +
        ` promoted KB per young collection ${median(build.promotedKbPerScavenge).toFixed(0)};` +
        ` peak RSS MB median ${median(build.peakRssMb).toFixed(0)}, max ${Math.max(...build.peakRssMb).toFixed(0)}`,
    );
  }
  const ratios = after.cpuMicrosPerRequest.map(
    (value, index) => value / (before.cpuMicrosPerRequest[index] as number),
  );
  console.log(`this/base CPU per request, median of the slices: ${median(ratios).toFixed(3)}`);
  // Whether the slices tell a change from noise: an interval that holds 1 does not.
  const interval = medianInterval(ratios, 0.9);
  const lower = ratios.filter((ratio) => ratio < 1).length;
  console.log(
    interval === undefined
      ? `too few slices for an interval; this was lower in ${lower} of ${ratios.length}`
      : `${(interval.coverage * 100).toFixed(1)}% interval of that median: ` +
          `${interval.low.toFixed(3)}–${interval.high.toFixed(3)}; this was lower in ${lower} of ${ratios.length}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
