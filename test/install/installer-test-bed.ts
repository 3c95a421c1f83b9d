import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import {
  modelPerDialect,
  startUpstreamTestBed,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/** The key the gateway holds for its upstream; the fake refuses any other credential. */
export const upstreamKey = 'installer-tests-upstream-key';

/** One model per upstream dialect the two clients meet. */
export const installerModels = {
  messages: 'install-via-anthropic',
  responses: 'install-via-responses',
} as const;

export type InstallerTestBed = UpstreamTestBed;

/** A listening gateway whose anthropic and openai-responses providers point at one fake. */
export function startInstallerTestBed(): Promise<InstallerTestBed> {
  return startUpstreamTestBed({
    ...modelPerDialect({
      anthropic: installerModels.messages,
      responses: installerModels.responses,
    }),
    upstreamKey,
    listen: true,
  });
}

export async function downloadInstaller(origin: string, name: string): Promise<string> {
  const response = await request(`${origin}/install/${name}`);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /install/${name}: ${response.statusCode}`);
  return text;
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a program in a new session: it has no controlling terminal (so an installer reads the
 * token from standard input) and the whole process group can be killed by its id on timeout.
 */
export async function runProcess(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string; timeoutMs: number },
): Promise<ProcessRun> {
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin ?? '');
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, options.timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode) => resolve(exitCode));
  });
  clearTimeout(timer);
  return { code, stdout, stderr, timedOut };
}

/** A fresh directory to act as a user's HOME. */
export async function makeHome(): Promise<{ home: string; remove(): Promise<void> }> {
  const home = await mkdtemp(path.join(tmpdir(), 'switchyard-install-home-'));
  return { home, remove: () => rm(home, { recursive: true, force: true }) };
}

/** Commands the POSIX installers call (everything else is a shell builtin). */
export const installerCommands = [
  'awk',
  'cat',
  'chmod',
  'cp',
  'curl',
  'date',
  'grep',
  'head',
  'mkdir',
  'mktemp',
  'mv',
  'rm',
  'sed',
  'stty',
  'tail',
  'tr',
  'wget',
];

/**
 * A PATH holding only the named commands, so a test decides which of node, python3, curl and
 * wget an installer finds. Commands missing on this machine are left out.
 */
export async function makeCommandPath(directory: string, commands: string[]): Promise<string> {
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const searchPath = (process.env.PATH ?? '').split(path.delimiter);
  for (const command of commands) {
    const found = await resolveCommand(command, searchPath);
    if (found !== undefined) await symlink(found, path.join(directory, command));
  }
  return directory;
}

async function resolveCommand(command: string, searchPath: string[]): Promise<string | undefined> {
  for (const directory of searchPath) {
    const candidate = path.join(directory, command);
    try {
      await access(candidate, constants.X_OK);
      // pyenv shims need their own environment; link the real interpreter instead.
      return command === 'python3' ? await resolvePython(candidate) : await realpath(candidate);
    } catch {
      continue;
    }
  }
  return undefined;
}

async function resolvePython(candidate: string): Promise<string | undefined> {
  const run = await runProcess(candidate, ['-c', 'import sys; print(sys.executable)'], {
    env: process.env,
    cwd: tmpdir(),
    timeoutMs: 10_000,
  });
  const executable = run.stdout.trim();
  return run.code === 0 && executable !== '' ? executable : undefined;
}
