/**
 * `npm run bench [-- --quick] [--rounds=N] [--duration=S] [--no-peer] [--soak=S] [--cpu-prof]
 * [--warmup-pass=S] [--only=scenario,…] [--gateway-node-args="--flag=1 --other"]
 * [--load=wrk|autocannon] [--upstream-writes=one|per-event] [--first-text-requests=N]
 * [--image-jobs=N] [--otlp]`
 * `--otlp` exports the gateway's traces and metrics to a sink that accepts them (tracing on).
 * `--only=transcription-uploads` runs the 20 × 25 MiB upload scenario alone (not part of --quick).
 * Mock upstream, bare forwarder (floor), Switchyard and the peer gateways as child processes on
 * 127.0.0.1; wrk load (autocannon where wrk is missing); CPU per request, latency, RSS; medians
 * over rounds. See docs/performance.md.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleRss, stopAll } from './lib/bench-process.ts';
import { generateLoad, measureLoad, preflight } from './lib/bench-load.ts';
import type { LoadGenerator, LoadMeasure } from './lib/bench-load.ts';
import { startOtlpSink } from './lib/otlp-sink.ts';
import { ensureWrk } from './lib/run-wrk.ts';
import { measureFirstText } from './lib/measure-first-text.ts';
import { measureImageJobs, type ImageJobsResult } from './lib/measure-image-jobs.ts';
import { summarizeFirstText } from './lib/summarize-first-text.ts';
import type { FirstText } from './lib/summarize-first-text.ts';
import {
  computeRatios,
  cpuRange,
  evaluateBudgets,
  medianMeasure,
  noisyFloorNotes,
  renderReport,
} from './lib/bench-report.ts';
import type { Row, SoakResult } from './lib/bench-report.ts';
import { buildScenarios } from './lib/bench-scenarios.ts';
import {
  measureTranscriptionUploads,
  TRANSCRIPTION_UPLOADS_ID,
} from './lib/measure-transcription-uploads.ts';
import type { TranscriptionUploads } from './lib/measure-transcription-uploads.ts';
import type { Scenario, TargetName } from './lib/bench-scenarios.ts';
import {
  SLOW_CHUNK_INTERVAL_MS,
  SLOW_LATENCY_MS,
  endpoint,
  removeDataDir,
  startTargets,
} from './lib/bench-targets.ts';
import type { BenchTargets } from './lib/bench-targets.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) =>
  argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const log = (line: string) => process.stderr.write(`${line}\n`);

const quick = flag('quick');
const chosenLoad = option('load');
const upstreamWrites = option('upstream-writes') ?? 'one';
if (upstreamWrites !== 'one' && upstreamWrites !== 'per-event') {
  throw new Error(`--upstream-writes must be one or per-event, not ${upstreamWrites}`);
}
const writes: 'one' | 'per-event' = upstreamWrites;
const wrkFound = chosenLoad === 'autocannon' ? false : ensureWrk(log);
const generator: LoadGenerator =
  chosenLoad === 'autocannon' || (chosenLoad === undefined && !wrkFound) ? 'autocannon' : 'wrk';
if (generator === 'wrk' && !wrkFound) {
  throw new Error('--load=wrk asked, but no wrk on PATH (Debian package wrk)');
}
const settings = {
  load: generator,
  upstreamWrites: writes,
  quick,
  rounds: Number(option('rounds') ?? (quick ? 1 : 3)),
  durationSeconds: Number(option('duration') ?? (quick ? 2 : 5)),
  slowDurationSeconds: Number(option('duration') ?? (quick ? 3 : 10)),
  warmupSeconds: quick ? 0.5 : 1,
  latencySeconds: quick ? 1 : 2,
  // Sequential requests per upstream dialect for the slow stream's time to first text.
  firstTextRequests: Number(option('first-text-requests') ?? (quick ? 3 : 7)),
  warmupPassSeconds: Number(option('warmup-pass') ?? (quick ? 0 : 3)),
  soakSeconds: Number(option('soak') ?? 0),
  withPeer: !flag('no-peer'),
  cpuProfile: flag('cpu-prof'),
  only: option('only')?.split(','),
  imageJobs: Number(option('image-jobs') ?? 200),
  // Replaces the flags of `npm start` for the gateway, to try others (space-separated).
  otlp: flag('otlp'),
  gatewayNodeArgs: option('gateway-node-args')
    ?.split(' ')
    .filter((arg) => arg !== ''),
};

// Bound the whole run in time: children are killed by the exit handler in bench-process.ts.
const deadlineMs = (quick ? 110 : 40 * 60) * 1000 + settings.soakSeconds * 1000;
setTimeout(() => {
  log(`bench: over its time bound (${deadlineMs / 1000} s), stopping`);
  process.exit(1);
}, deadlineMs).unref();

async function soak(targets: BenchTargets, scenario: Scenario): Promise<SoakResult> {
  const { url, headers, process: gateway } = endpoint(targets, 'gateway', scenario);
  log(`soak: ${settings.soakSeconds} s of ${scenario.id} at ${scenario.connections} connections`);
  const sampler = sampleRss(gateway.pid, 5000);
  const result = await generateLoad(settings.load, {
    url,
    headers,
    body: scenario.body,
    connections: scenario.connections,
    durationSeconds: settings.soakSeconds,
  });
  const rss = sampler.stop();
  const mb = rss.samples.map((kb) => kb / 1024);
  const tenth = Math.max(1, Math.floor(mb.length / 10));
  const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    seconds: settings.soakSeconds,
    connections: scenario.connections,
    requests: result.completed,
    failures: result.failures,
    // Early = the second tenth (after warm-up growth), late = the last tenth.
    rssMbEarly: average(mb.slice(tenth, 2 * tenth)),
    rssMbLate: average(mb.slice(-tenth)),
    rssMbPeak: Math.max(...mb),
    samplesMb: mb.map((value) => Math.round(value)),
  };
}

async function main(): Promise<number> {
  const scenarios = buildScenarios(quick).filter(
    (scenario) => settings.only === undefined || settings.only.includes(scenario.id),
  );
  const notes: string[] = [];
  const profileDir = settings.cpuProfile
    ? mkdtempSync(join(tmpdir(), 'switchyard-prof-'))
    : undefined;
  log(
    `bench: starting targets (${quick ? 'quick' : 'full'}, ${settings.rounds} round(s), load from ${settings.load}, upstream writes: ${settings.upstreamWrites})`,
  );
  notes.push(
    settings.load === 'wrk'
      ? 'load from wrk (one thread)'
      : `load from autocannon${wrkFound ? ' (asked)' : ' (wrk not found; install the Debian package wrk)'}: it shares the cores with the targets and inflates every per-request cost`,
  );
  let targets: BenchTargets | undefined;
  const sink = settings.otlp ? await startOtlpSink() : undefined;
  if (sink !== undefined) notes.push(`tracing on: OTLP exports to a sink at ${sink.url}`);
  try {
    targets = await startTargets(root, {
      ...(sink !== undefined ? { gatewayEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } } : {}),
      withPeer: settings.withPeer,
      upstreamWrites: settings.upstreamWrites,
      ...(profileDir ? { cpuProfileDir: profileDir } : {}),
      ...(settings.gatewayNodeArgs ? { gatewayNodeArgs: settings.gatewayNodeArgs } : {}),
    });
    notes.push(...targets.peerProblems);
    const running = targets;

    // One checked request per target and scenario: a target that cannot serve it is left out.
    const plan: { scenario: Scenario; target: TargetName }[] = [];
    for (const scenario of scenarios) {
      for (const target of scenario.targets) {
        if (target === 'peer' && !running.peer) continue;
        if (target === 'ccr' && !running.ccr) continue;
        const { url, headers } = endpoint(running, target, scenario);
        try {
          await preflight(url, headers, scenario.body);
          plan.push({ scenario, target });
        } catch (error) {
          notes.push(
            `${target} left out of ${scenario.id}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }

    // JIT warm-up: the first pass over every scenario runs cold code paths (round 1 of early
    // runs measured the gateway 2-3× slower than later rounds); it is run and thrown away.
    for (const { scenario, target } of settings.warmupPassSeconds > 0 ? plan : []) {
      const { url, headers } = endpoint(running, target, scenario);
      await generateLoad(settings.load, {
        url,
        headers,
        body: scenario.body,
        connections: scenario.connections,
        durationSeconds: settings.warmupPassSeconds,
        ...(scenario.freshHeader === undefined ? {} : { freshHeader: scenario.freshHeader }),
      });
    }
    if (settings.warmupPassSeconds > 0) log('bench: warm-up pass done');

    const measured = new Map<string, LoadMeasure[]>();
    for (let round = 1; round <= settings.rounds; round++) {
      for (const { scenario, target } of plan) {
        const { url, headers, process: served } = endpoint(running, target, scenario);
        const measure = await measureLoad({
          generator: settings.load,
          pid: served.pid,
          url,
          headers,
          body: scenario.body,
          connections: scenario.connections,
          durationSeconds: scenario.slow ? settings.slowDurationSeconds : settings.durationSeconds,
          warmupSeconds: settings.warmupSeconds,
          latencySeconds: scenario.latencyRun ? settings.latencySeconds : 0,
          ...(scenario.freshHeader === undefined ? {} : { freshHeader: scenario.freshHeader }),
        });
        const key = `${scenario.id}|${target}`;
        measured.set(key, [...(measured.get(key) ?? []), measure]);
        log(
          `round ${round} ${scenario.id.padEnd(22)} ${target.padEnd(7)} ${measure.requestsPerSecond.toFixed(0).padStart(6)} req/s ` +
            `${measure.cpuMicrosPerRequest.toFixed(0).padStart(6)} µs/req (user ${(measure.userMicrosPerRequest ?? Number.NaN).toFixed(0)}) ${measure.peakRssMb.toFixed(0).padStart(4)} MB` +
            (measure.failures ? ` ${measure.failures} failures` : ''),
        );
      }
    }

    const rows: Row[] = plan.map(({ scenario, target }) => {
      const rounds = measured.get(`${scenario.id}|${target}`) ?? [];
      const range = cpuRange(rounds);
      return {
        scenario: scenario.id,
        target,
        rounds: rounds.length,
        median: medianMeasure(rounds),
        ...(range === undefined ? {} : { cpuRange: range }),
      };
    });
    const slow = scenarios.find((scenario) => scenario.slow);
    // Part of the slow-stream scenario: measured when the gateway serves it.
    let firstText: FirstText[] | undefined;
    if (plan.some(({ scenario, target }) => scenario.slow && target === 'gateway')) {
      firstText = summarizeFirstText(await measureFirstText(running, settings.firstTextRequests));
      for (const row of firstText) {
        log(
          `first text messages → ${row.dialect.padEnd(16)} upstream ${row.upstreamP50Ms.toFixed(1)} ms, gateway ${row.gatewayP50Ms.toFixed(1)} ms (p50 of ${row.requests})` +
            (row.failures ? ` ${row.failures} failures` : ''),
        );
      }
    }
    const soaked = settings.soakSeconds > 0 && slow ? await soak(running, slow) : undefined;
    // Not a load-generator scenario: 20 uploads at once, the gateway's RSS sampled throughout.
    const uploadsAsked =
      settings.only === undefined ? !quick : settings.only.includes(TRANSCRIPTION_UPLOADS_ID);
    let uploads: TranscriptionUploads | undefined;
    if (uploadsAsked) {
      uploads = await measureTranscriptionUploads({
        pid: running.gateway.pid,
        port: running.gateway.port,
        token: running.gatewayToken,
      });
      log(
        `${TRANSCRIPTION_UPLOADS_ID}: ${uploads.ok}/${uploads.uploads} × ${uploads.fileBytes} bytes in ${uploads.seconds.toFixed(1)} s; ` +
          `gateway RSS idle ${uploads.idleRssMb.toFixed(0)} MB, peak ${uploads.peakRssMb.toFixed(0)} MB (the files total ${uploads.filesTotalMb} MB)` +
          (uploads.failures.length > 0 ? `; failures: ${uploads.failures.join(' | ')}` : ''),
      );
      if (uploads.ok !== uploads.uploads)
        notes.push(`${TRANSCRIPTION_UPLOADS_ID}: some uploads failed`);
    }
    // Named scenario `image-jobs`: part of a full run, not of --quick (docs/performance.md).
    let imageJobs: ImageJobsResult | undefined;
    if (settings.only === undefined ? !quick : settings.only.includes('image-jobs')) {
      imageJobs = await measureImageJobs(root, running, settings.imageJobs, log);
      if (!imageJobs.exact) notes.push('image-jobs: the charges were not exact');
    }
    const ratios = computeRatios(scenarios, rows);
    const budgets = evaluateBudgets(scenarios, rows, ratios, soaked, firstText);
    if (rows.some((row) => row.median.failures > 0))
      notes.push('some runs had non-2xx answers or errors (column fail)');
    notes.push(...noisyFloorNotes(rows));

    process.stdout.write(`${renderReport(rows, ratios, budgets, notes, firstText)}\n`);
    const resultsDir = join(root, 'bench/results');
    mkdirSync(resultsDir, { recursive: true });
    const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
    const file = join(resultsDir, `${stamp}${quick ? '-quick' : ''}.json`);
    const environment = {
      node: process.version,
      platform: process.platform,
      cpus: (await import('node:os')).cpus().length,
    };
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          settings: {
            ...settings,
            slowUpstream: { latencyMs: SLOW_LATENCY_MS, chunkIntervalMs: SLOW_CHUNK_INTERVAL_MS },
          },
          environment,
          scenarios: scenarios.map(({ body, ...rest }) => ({
            ...rest,
            bodyBytes: Buffer.byteLength(body),
          })),
          rows,
          ratios,
          budgets,
          firstText,
          soak: soaked,
          transcriptionUploads: uploads,
          imageJobs,
          notes,
        },
        null,
        2,
      )}\n`,
    );
    log(`bench: wrote ${file}`);
    return 0;
  } finally {
    await stopAll();
    if (sink !== undefined) {
      log(`bench: the OTLP sink took ${sink.exports()} exports`);
      await sink.close();
    }
    if (targets) removeDataDir(targets);
    if (profileDir) log(`bench: gateway CPU profile in ${profileDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void stopAll().finally(() => process.exit(1));
  },
);
