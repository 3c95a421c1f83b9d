import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/compose.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { OperatorService } from '../../src/operator/operator-service.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { freePort } from '../support/free-port.ts';
import { streamMessage, testModel } from '../support/test-gateway.ts';

/**
 * The README runs the gateway with `npm start`, and a process manager or a container stops it by
 * signalling that npm process. The signal has to reach the gateway itself: a stream in flight
 * finishes and is charged, the gateway exits, and its port and its store's lease are free for the
 * next start. (A shell between npm and node would take the signal and die, leaving the gateway
 * running, orphaned, on the port and the lease.)
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const streamedText = 'Every piece of this answer reaches the client before the gateway exits.';

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start, stopped by a signal to npm', () => {
  let upstream: FakeUpstream;
  let dataDir: string;
  let port: number;
  let rawConfig: Record<string, unknown>;
  let npm: ChildProcess;
  let output = '';
  let token: string;
  let accountId: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-npm-start-'));
    port = await freePort();
    rawConfig = {
      dataDir,
      server: { host: '127.0.0.1', port, logLevel: 'info' },
      providers: {
        upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKeyEnv: 'UPSTREAM_KEY' },
      },
      models: [testModel('claude-test', 'upstream')],
    };
    const configPath = path.join(dataDir, 'switchyard.config.json');
    await writeFile(configPath, JSON.stringify(rawConfig));

    const store = await openStore(parseConfig(rawConfig), { owner: false });
    try {
      const operator = new OperatorService(store);
      const account = await operator.createAccount({ name: 'signals' });
      await operator.changeCredits({
        accountId: account.id,
        amount: 1_000_000, // µcredits: one credit
        reason: 'test grant',
        kind: 'grant',
      });
      const created = await operator.createToken({
        accountId: account.id,
        name: 'signals',
        expiresAt: null,
        allowedModels: null,
      });
      token = created.token;
      accountId = account.id;
    } finally {
      await store.close();
    }

    npm = spawn('npm', ['start'], {
      cwd: root,
      env: {
        ...process.env,
        SWITCHYARD_CONFIG: configPath,
        PORT: String(port),
        UPSTREAM_KEY: 'upstream-key',
      },
    });
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const startedAt = Date.now();
    for (;;) {
      if (npm.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (output.includes('Server listening')) break;
      if (Date.now() - startedAt > 80_000) throw new Error(`no gateway:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 90_000);

  afterAll(async () => {
    // Only if the test failed before its own stop: end what npm started, by the pid it logged.
    const gatewayPid = /"pid":(\d+)/.exec(output)?.[1];
    if (gatewayPid !== undefined) {
      try {
        process.kill(Number(gatewayPid), 'SIGKILL');
      } catch {
        // already gone, as it should be
      }
    }
    if (npm?.exitCode === null) npm.kill('SIGKILL');
    await upstream?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lets the stream in flight finish and be charged, then frees the port and the lease', async () => {
    upstream.enqueue({
      output: [{ text: streamedText }],
      usage: { input: 12, output: 20 },
      chunkDelayMs: 60,
    });
    const answer = await streamMessage(`http://127.0.0.1:${port}`, token, {
      model: 'claude-test',
      maxTokens: 100,
    });
    expect(answer.statusCode).toBe(200);

    const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
    let body = '';
    let signalled = false;
    for await (const chunk of answer.body) {
      body += (chunk as Buffer).toString();
      if (!signalled && body.includes('text_delta')) {
        signalled = true;
        // What `docker stop` or a process manager does to the process it started.
        npm.kill('SIGTERM');
      }
    }
    expect(signalled).toBe(true);
    expect(body).toContain('event: message_stop');
    const text = [...body.matchAll(/"text_delta","text":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(text).toBe(streamedText);

    expect(await exited).toBe(0);
    expect(output).toContain('shutting down: finishing in-flight requests');
    expect(await portAnswers(port)).toBe(false);

    // The lease is free: opening the store as its owner works at once, and the charge is there.
    const store = await openStore(parseConfig(rawConfig));
    try {
      const [usage] = await store.usage.listUsage(accountId, 1);
      // 12 input tokens at 3 credits and 20 output at 15 credits a million: 336 µcredits.
      expect(usage).toMatchObject({ inputTokens: 12, outputTokens: 20, cost: 336, outcome: 'ok' });
    } finally {
      await store.close();
    }
  }, 60_000);
});
