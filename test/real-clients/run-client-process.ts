import { spawn } from 'node:child_process';

export interface ClientRun {
  /** Exit code, or null when the process was killed. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

export interface ClientProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment: nothing of the test process is inherited beyond it. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** Ends the client's whole process group by its id (Codex's launcher starts a native child). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs one real client to completion with stdin closed, in its own process group, and kills
 * the group when it outlives `timeoutMs` so a hung client cannot hang the suite.
 */
export function runClientProcess(options: ClientProcessOptions): Promise<ClientRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Helpers the client left behind (none expected) go with it.
      killGroup(child.pid);
      resolve({ code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
  });
}

/** A failure message that shows what the client said, for a run that did not succeed. */
export function describeRun(run: ClientRun): string {
  const tail = (text: string) => text.slice(-4000);
  return [
    `exit ${String(run.code)} signal ${String(run.signal)} timedOut ${String(run.timedOut)} after ${run.durationMs} ms`,
    `stdout: ${tail(run.stdout)}`,
    `stderr: ${tail(run.stderr)}`,
  ].join('\n');
}
