import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runClientProcess } from './run-client-process.ts';

/** Dead: no such process, or a zombie waiting to be reaped (it runs nothing any more). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

const node = process.execPath;

describe('runClientProcess', () => {
  it('returns the output and exit code of a client that finishes', async () => {
    const run = await runClientProcess({
      command: node,
      args: ['-e', 'process.stdout.write(process.env.ONLY_THIS ?? "none"); process.exit(3)'],
      cwd: tmpdir(),
      env: { ONLY_THIS: 'set by the test' },
      timeoutMs: 30_000,
    });
    expect(run).toMatchObject({ code: 3, timedOut: false, stdout: 'set by the test' });
  });

  it('kills a hung client and the processes it started, by process group', async () => {
    // The client starts a helper (as Codex's launcher starts its native binary) and hangs.
    const script = [
      'const { spawn } = require("node:child_process");',
      'const helper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);',
      'process.stdout.write(String(helper.pid));',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const run = await runClientProcess({
      command: node,
      args: ['-e', script],
      cwd: tmpdir(),
      env: {},
      timeoutMs: 1_000,
    });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGKILL');
    expect(run.durationMs).toBeLessThan(10_000);
    const helper = Number(run.stdout);
    expect(helper).toBeGreaterThan(0);
    for (let attempt = 0; attempt < 50 && !isGone(helper); attempt += 1) await sleep(20);
    expect(isGone(helper)).toBe(true);
  });
});
