/**
 * Child processes of the bench: started with the node binary directly (so the PID we hold is the
 * server itself), stopped by that PID, and always stopped when the harness exits or fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

export interface BenchProcess {
  name: string;
  pid: number;
  port: number;
  child: ChildProcess;
  /** The last lines the process wrote to stderr/stdout, for error reports. */
  output(): string;
}

const running = new Set<BenchProcess>();

function killNow(process_: BenchProcess): void {
  try {
    process.kill(process_.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

process.on('exit', () => {
  for (const started of running) killNow(started);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const started of running) killNow(started);
    process.exit(130);
  });
}

/** A port the OS reports free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function probe(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const call = request(
      { host: '127.0.0.1', port, path, method: 'GET', timeout: 1000 },
      (answer) => {
        answer.resume();
        resolve((answer.statusCode ?? 500) < 500);
      },
    );
    call.on('error', () => resolve(false));
    call.on('timeout', () => call.destroy());
    call.end();
  });
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  cwd: string;
  readyPath?: string;
  readyTimeoutMs?: number;
}

export async function startProcess(options: StartOptions): Promise<BenchProcess> {
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  if (child.pid === undefined) throw new Error(`${options.name}: spawn failed`);
  const started: BenchProcess = {
    name: options.name,
    pid: child.pid,
    port: options.port,
    child,
    output: () => tail,
  };
  running.add(started);
  child.once('exit', () => running.delete(started));
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${options.name} exited with ${child.exitCode}: ${tail.trim()}`);
    }
    if (await probe(options.port, options.readyPath ?? '/')) return started;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await stopProcess(started);
  throw new Error(`${options.name} did not answer on port ${options.port}: ${tail.trim()}`);
}

/** SIGTERM by PID, SIGKILL after `graceMs`. */
export async function stopProcess(started: BenchProcess, graceMs = 3000): Promise<void> {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  try {
    process.kill(started.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => killNow(started), graceMs);
  await exited;
  clearTimeout(timer);
  running.delete(started);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((started) => stopProcess(started)));
}

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // Linux default
}

/** utime and stime of a process in microseconds (proc(5): fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: (Number(fields[11]) * 1_000_000) / clockTicks,
    system: (Number(fields[12]) * 1_000_000) / clockTicks,
  };
}

/** utime + stime of a process in microseconds. */
export function cpuMicros(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** Resident set size in kB (VmRSS in /proc/<pid>/status), 0 when the process is gone. */
export function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export interface RssSampler {
  stop(): { peakKb: number; firstKb: number; lastKb: number; samples: number[] };
}

export function sampleRss(pid: number, everyMs = 100): RssSampler {
  const samples: number[] = [rssKb(pid)];
  const timer = setInterval(() => samples.push(rssKb(pid)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push(rssKb(pid));
      return {
        peakKb: Math.max(...samples),
        firstKb: samples[0] ?? 0,
        lastKb: samples[samples.length - 1] ?? 0,
        samples,
      };
    },
  };
}
