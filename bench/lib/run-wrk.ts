/**
 * One load window from `wrk` (Debian package `wrk`): a C load generator with one thread, so the
 * load costs the shared cores far less than a Node one would (docs/performance.md, method).
 * The request comes from a Lua script that reads the body from a file.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WrkSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationSeconds: number;
  /** A header given a fresh value on every request (an idempotency key: each run is new). */
  freshHeader?: string;
}

export interface WrkResult {
  /** Answers with a 2xx status. */
  completed: number;
  failures: number;
  durationSeconds: number;
  p50Ms: number;
  p99Ms: number;
}

/** True when a `wrk` binary answers on PATH. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary throws ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * Installs Debian's wrk when it is missing and this process may (root, apt-get present): the
 * benchmark's figures depend on the load generator, so it tries before falling back.
 */
export function ensureWrk(log: (line: string) => void): boolean {
  if (hasWrk()) return true;
  if (process.getuid?.() !== 0) return false;
  log('bench: wrk not found; installing the Debian package wrk');
  const aptGet = (...args: string[]) => {
    try {
      execFileSync('apt-get', args, { stdio: 'ignore', timeout: 180_000 });
    } catch {
      // Judged by hasWrk() below.
    }
  };
  aptGet('install', '-y', '-qq', 'wrk');
  if (hasWrk()) return true;
  // A machine whose package lists were never fetched needs them first.
  aptGet('update', '-qq');
  aptGet('install', '-y', '-qq', 'wrk');
  return hasWrk();
}

const luaString = (value: string) => JSON.stringify(value);

function script(spec: WrkSpec, bodyFile: string): string {
  const headers = Object.entries(spec.headers)
    .map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`)
    .join('\n');
  // wrk builds every request anew only when the script defines `request`; costlier, so only then.
  const fresh =
    spec.freshHeader === undefined
      ? []
      : [
          'local count = 0',
          `local prefix = ${luaString(`bench-${process.pid}-${Date.now().toString(36)}-`)}`,
          'request = function()',
          '  count = count + 1',
          `  wrk.headers[${luaString(spec.freshHeader)}] = prefix .. count`,
          '  return wrk.format()',
          'end',
        ];
  return [
    `local file = assert(io.open(${luaString(bodyFile)}, "rb"))`,
    'wrk.method = "POST"',
    'wrk.body = file:read("*a")',
    'file:close()',
    headers,
    ...fresh,
    '',
  ].join('\n');
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function milliseconds(text: string | undefined): number {
  const match = text?.match(/^([\d.]+)(us|ms|s|m)$/);
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
}

/** Reads wrk's text report (`--latency`): totals, errors, non-2xx answers and percentiles. */
export function parseWrkReport(text: string): WrkResult {
  const total = text.match(/(\d+) requests in ([\d.]+)(us|ms|s|m)/);
  if (!total) throw new Error(`wrk printed no totals:\n${text}`);
  const requests = Number(total[1]);
  const durationSeconds = milliseconds(`${total[2]}${total[3]}`) / 1000;
  const non2xx = Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  const socket = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const percentile = (p: string) =>
    milliseconds(text.match(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm'))?.[1]);
  return {
    completed: requests - non2xx,
    failures: non2xx + socketErrors,
    durationSeconds,
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
  };
}

export async function runWrk(spec: WrkSpec): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-wrk-'));
  try {
    const bodyFile = join(dir, 'body.json');
    const scriptFile = join(dir, 'request.lua');
    writeFileSync(bodyFile, spec.body);
    writeFileSync(scriptFile, script(spec, bodyFile));
    // wrk takes whole seconds only (`-d0.5s` prints its usage and exits 1): the quick run's
    // half-second warm-up rounds up to one.
    const seconds = Math.max(1, Math.ceil(spec.durationSeconds));
    const { stdout } = await run(
      'wrk',
      [
        '-t1',
        `-c${spec.connections}`,
        `-d${seconds}s`,
        '--timeout',
        '30s',
        '--latency',
        '-s',
        scriptFile,
        spec.url,
      ],
      { timeout: (seconds + 60) * 1000, maxBuffer: 1 << 20 },
    );
    return parseWrkReport(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
