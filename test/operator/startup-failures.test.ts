import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startupExitCodes } from '../../src/logging/explain-startup-failure.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import { freePort } from '../support/free-port.ts';

/**
 * What an operator sees when the gateway cannot start (docs/operations.md, "Exit codes"): one
 * line naming the fix and a documented exit code, never a stack. The gateway runs `src/main.ts`
 * as `npm start` does, without the build step, in a process of its own.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startGateway(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

async function waitForListening(started: Started): Promise<void> {
  const startedAt = Date.now();
  while (!started.output().includes('Server listening')) {
    if (started.child.exitCode !== null) throw new Error(`exited:\n${started.output()}`);
    if (Date.now() - startedAt > 60_000) throw new Error(`no gateway:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The explained failure: exactly one line at fatal (60), and no stack anywhere. */
function onlyLine(output: string): Record<string, unknown> {
  expect(output).not.toMatch(/^\s+at /m);
  const fatal = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.level === 60);
  expect(fatal, output).toHaveLength(1);
  return fatal[0] as Record<string, unknown>;
}

describe('a gateway that cannot start', () => {
  let dataDir: string;
  let configPath: string;
  const running: Started[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-startup-'));
    configPath = path.join(dataDir, 'switchyard.config.json');
    await writeFile(
      configPath,
      JSON.stringify({ dataDir, server: { host: '127.0.0.1', logLevel: 'info' } }),
    );
  });

  afterAll(async () => {
    // Only gateways this suite started, by the pid it spawned.
    for (const started of running) {
      if (started.child.exitCode === null && started.child.pid !== undefined) {
        process.kill(started.child.pid, 'SIGKILL');
        await started.exited;
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names a port in use and exits 71', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const started = startGateway({ SWITCHYARD_CONFIG: configPath, PORT: String(port) });
      running.push(started);
      expect(await started.exited).toBe(startupExitCodes.addressUnavailable);
      const line = onlyLine(started.output());
      expect(line.msg).toContain(`127.0.0.1:${port}`);
      expect(line.msg).toContain('in use');
      expect(line.msg).toContain('server.port');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);

  it('names a short seal key and its variable and exits 78', async () => {
    const started = startGateway({
      SWITCHYARD_CONFIG: configPath,
      PORT: String(await freePort()),
      SWITCHYARD_SEAL_KEY: 'too-short',
    });
    running.push(started);
    expect(await started.exited).toBe(startupExitCodes.configuration);
    const line = onlyLine(started.output());
    expect(line.msg).toContain('SWITCHYARD_SEAL_KEY must be at least 32 characters');
    expect(started.output()).not.toContain('too-short');
  }, 60_000);

  it('names the migration of a newer build the store holds and exits 78', async () => {
    const newerDir = await mkdtemp(path.join(tmpdir(), 'switchyard-newer-'));
    try {
      const newerConfig = path.join(newerDir, 'switchyard.config.json');
      await writeFile(
        newerConfig,
        JSON.stringify({ dataDir: newerDir, server: { host: '127.0.0.1', logLevel: 'info' } }),
      );
      // The file as a newer build leaves it: one migration more than this build knows.
      const store = await openSqliteStore({ path: path.join(newerDir, 'switchyard.sqlite') });
      await store.close();
      const connection = new BetterSqlite3(path.join(newerDir, 'switchyard.sqlite'));
      connection
        .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
        .run('9999_from_a_newer_build', new Date().toISOString());
      connection.close();

      const started = startGateway({
        SWITCHYARD_CONFIG: newerConfig,
        PORT: String(await freePort()),
      });
      running.push(started);
      expect(await started.exited).toBe(startupExitCodes.configuration);
      const line = onlyLine(started.output());
      expect(line.msg).toContain('upgraded by a newer Switchyard build');
      expect(line.msg).toContain('9999_from_a_newer_build');
    } finally {
      await rm(newerDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('names the process serving the embedded store and exits 75; SIGTERM stops the first gracefully', async () => {
    const first = startGateway({ SWITCHYARD_CONFIG: configPath, PORT: String(await freePort()) });
    running.push(first);
    await waitForListening(first);
    const second = startGateway({ SWITCHYARD_CONFIG: configPath, PORT: String(await freePort()) });
    running.push(second);
    expect(await second.exited).toBe(startupExitCodes.storeHeld);
    const line = onlyLine(second.output());
    expect(line.msg).toContain(`pid ${first.child.pid}`);
    expect(line.msg).toContain('one gateway process per embedded store');

    process.kill(first.child.pid as number, 'SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('"signal":"SIGTERM"');
    expect(first.output()).toContain('shutting down');
  }, 90_000);
});
