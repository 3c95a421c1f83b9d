/**
 * One measured window: load from `wrk` (or autocannon where wrk is missing) against a target
 * while its own CPU time (/proc/<pid>/stat) and RSS (/proc/<pid>/status) are read, plus a
 * one-connection run for latency without queueing.
 */
import autocannon, { type AutocannonOptions } from 'autocannon';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { cpuTimes, sampleRss } from './bench-process.ts';
import { runWrk } from './run-wrk.ts';
import type { WrkResult, WrkSpec } from './run-wrk.ts';

export type LoadGenerator = 'wrk' | 'autocannon';

export interface LoadSpec {
  generator: LoadGenerator;
  pid: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  latencySeconds: number;
  /** A header given a fresh value on every request (Scenario.freshHeader). */
  freshHeader?: string;
}

let freshCount = 0;

/** A value no earlier request of this run carried. */
function freshValue(): string {
  freshCount += 1;
  return `bench-${process.pid}-${Date.now().toString(36)}-${freshCount}`;
}

/** autocannon options that give `header` a fresh value on every request. */
export function freshHeaderRequests(
  header: string | undefined,
): Pick<AutocannonOptions, 'requests'> {
  if (header === undefined) return {};
  return {
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, [header]: freshValue() },
        }),
      },
    ],
  };
}

export interface LoadMeasure {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** From the one-connection run; undefined when it was skipped. */
  p50SingleMs?: number;
  p99SingleMs?: number;
  cpuMicrosPerRequest: number;
  /**
   * The user-space part of `cpuMicrosPerRequest` (utime); the rest is the kernel's work for the
   * process (stime: system calls, the network). Undefined in results written before it was kept.
   */
  userMicrosPerRequest?: number;
  peakRssMb: number;
  rssGrowthMb: number;
  failures: number;
}

/** Sends one request and checks for a 200 with a body, so a misconfigured target fails loudly. */
export function preflight(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method: 'POST', headers, timeout: 10_000 }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (part: Buffer) => parts.push(part));
      answer.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        if (answer.statusCode === 200 && text.length > 0) resolve();
        else reject(new Error(`${url} answered ${answer.statusCode}: ${text.slice(0, 400)}`));
      });
    });
    call.on('timeout', () => call.destroy(new Error(`${url}: no answer in 10 s`)));
    call.on('error', reject);
    call.end(body);
  });
}

function once(agent: Agent, spec: LoadSpec): Promise<boolean> {
  return new Promise((resolve) => {
    const headers =
      spec.freshHeader === undefined
        ? spec.headers
        : { ...spec.headers, [spec.freshHeader]: freshValue() };
    const call = request(
      spec.url,
      { method: 'POST', headers, agent, timeout: 30_000 },
      (answer) => {
        answer.on('data', () => undefined);
        answer.on('end', () => resolve(answer.statusCode === 200));
      },
    );
    call.on('timeout', () => call.destroy());
    call.on('error', () => resolve(false));
    call.end(spec.body);
  });
}

/**
 * Requests one after another on one keep-alive connection, timed with performance.now():
 * autocannon's histogram counts whole milliseconds, too coarse without queueing.
 */
async function sequential(spec: LoadSpec, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end) {
      const start = performance.now();
      if (await once(agent, spec)) latencies.push(performance.now() - start);
      else failures++;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), failures };
}

/** One window of load from the chosen generator, in one shape whichever ran. */
export async function generateLoad(generator: LoadGenerator, spec: WrkSpec): Promise<WrkResult> {
  if (generator === 'wrk') return runWrk(spec);
  const result = await autocannon({
    url: spec.url,
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: 30,
    ...freshHeaderRequests(spec.freshHeader),
  });
  return {
    completed: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
    durationSeconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

const cannon = (spec: LoadSpec, connections: number, durationSeconds: number) =>
  generateLoad(spec.generator, { ...spec, connections, durationSeconds });

export async function measureLoad(spec: LoadSpec): Promise<LoadMeasure> {
  if (spec.warmupSeconds > 0) await cannon(spec, spec.connections, spec.warmupSeconds);
  const sampler = sampleRss(spec.pid);
  const cpuBefore = cpuTimes(spec.pid);
  const loaded = await cannon(spec, spec.connections, spec.durationSeconds);
  const cpuAfter = cpuTimes(spec.pid);
  const rss = sampler.stop();
  const completed = loaded.completed;
  let single;
  if (spec.latencySeconds > 0) single = await sequential(spec, spec.latencySeconds);
  return {
    requestsPerSecond: completed / loaded.durationSeconds,
    requests: completed,
    p50Ms: loaded.p50Ms,
    p99Ms: loaded.p99Ms,
    ...(single ? { p50SingleMs: single.p50, p99SingleMs: single.p99 } : {}),
    cpuMicrosPerRequest:
      completed > 0
        ? (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / completed
        : Number.NaN,
    userMicrosPerRequest: completed > 0 ? (cpuAfter.user - cpuBefore.user) / completed : Number.NaN,
    peakRssMb: rss.peakKb / 1024,
    rssGrowthMb: (rss.lastKb - rss.firstKb) / 1024,
    failures: loaded.failures + (single?.failures ?? 0),
  };
}
