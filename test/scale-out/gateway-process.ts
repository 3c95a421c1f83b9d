import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { request } from 'undici';

import { startScriptNodeFlags } from '../support/start-script-flags.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The flags `npm start` and the systemd unit of docs/deployment.md run the build with. */
const nodeFlags = startScriptNodeFlags();

/**
 * Builds the gateway as `npm run build` does, into a folder of the run's own under `dist/` (so no
 * other test's build replaces it mid-run), and answers its entry file and a way to remove it.
 */
export async function buildGatewayCopy(): Promise<{ entry: string; remove(): Promise<void> }> {
  const folder = path.join(root, 'dist', `scale-out-${randomUUID()}`);
  await promisify(execFile)(process.execPath, [
    path.join(root, 'scripts/build-gateway.mjs'),
    `--outdir=${folder}`,
  ]);
  return {
    entry: path.join(folder, 'main.js'),
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/**
 * One gateway process started as a process manager starts it: the build's entry,
 * the configuration file named by `SWITCHYARD_CONFIG`, everything else in its environment. It can
 * be stopped with SIGTERM (graceful), killed with SIGKILL, and started again on the same port.
 */
export class GatewayProcess {
  readonly url: string;
  readonly #entry: string;
  readonly #environment: Record<string, string>;
  #child: ChildProcess | undefined;
  #exited: Promise<number | null> = Promise.resolve(null);
  #output = '';

  constructor(entry: string, port: number, environment: Record<string, string>) {
    this.#entry = entry;
    this.url = `http://127.0.0.1:${port}`;
    this.#environment = { ...environment, PORT: String(port) };
  }

  /** The last lines the process wrote, for a failing assertion's message. */
  get output(): string {
    return this.#output.slice(-4_000);
  }

  /** The running process's id (for its CPU time in /proc). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && !this.#child.killed;
  }

  /** Starts the process and resolves once `/readyz` answers 200. */
  async start(readyWithinMs = 60_000): Promise<void> {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('SWITCHYARD_')),
    );
    const child = spawn(process.execPath, [...nodeFlags, this.#entry], {
      cwd: root,
      env: { ...inherited, MALLOC_ARENA_MAX: '2', ...this.#environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#output = '';
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString()).slice(-16_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + readyWithinMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new Error(`gateway exited ${child.exitCode} before it was ready:\n${this.output}`);
      }
      if (await this.ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gateway not ready within ${readyWithinMs} ms:\n${this.output}`);
  }

  /** Whether `/readyz` answers 200 now. */
  async ready(): Promise<boolean> {
    try {
      const response = await request(`${this.url}/readyz`, { headersTimeout: 1_000 });
      await response.body.dump();
      return response.statusCode === 200;
    } catch {
      return false;
    }
  }

  /** SIGTERM (what `systemctl stop` sends), resolved with the exit code. */
  async terminate(): Promise<number | null> {
    this.#child?.kill('SIGTERM');
    return this.#exited;
  }

  /** kill -9, resolved once the process is gone. */
  async kill(): Promise<void> {
    this.#child?.kill('SIGKILL');
    await this.#exited;
  }
}
