import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startWebSocketTestBed,
  wsModels,
  type WebSocketTestBed,
} from './responses-websocket-test-bed.ts';
import {
  clientBinaries,
  clientPath,
  describeWithClient,
} from '../real-clients/require-client-binary.ts';

const codexLauncher = clientPath(clientBinaries.codexLauncher);
const tokenVariable = 'SWITCHYARD_TOKEN';

/** Variables that would point Codex elsewhere or hand it a credential of the developer's. */
const foreignVariable = /^(OPENAI_|CODEX_|ANTHROPIC_|XDG_)/;

/** docs/clients.md, Codex over WebSocket: a custom provider with `supports_websockets = true`. */
function codexConfig(origin: string): string {
  return [
    `model = ${JSON.stringify(wsModels.responses)}`,
    'model_provider = "switchyard"',
    '',
    '[model_providers.switchyard]',
    'name = "switchyard"',
    `base_url = ${JSON.stringify(`${origin}/v1`)}`,
    `env_key = "${tokenVariable}"`,
    'wire_api = "responses"',
    'supports_websockets = true',
    // The gateway answers at once or not at all: no retries to wait out.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

async function runCodex(bed: WebSocketTestBed, home: string, prompt: string) {
  const codexHome = path.join(home, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(path.join(codexHome, 'config.toml'), codexConfig(bed.origin));
  const lastMessageFile = path.join(home, 'last-message.txt');
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !foreignVariable.test(name)) env[name] = value;
  }
  Object.assign(env, { HOME: home, CODEX_HOME: codexHome, [tokenVariable]: bed.token });
  const child = spawn(
    process.execPath,
    [
      codexLauncher,
      'exec',
      '--skip-git-repo-check',
      '--color',
      'never',
      '--output-last-message',
      lastMessageFile,
      '--cd',
      home,
      prompt,
    ],
    { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const lastMessage = await readFile(lastMessageFile, 'utf8').catch(() => undefined);
  return { code, output, lastMessage };
}

describeWithClient('Codex exec over the responses WebSocket', clientBinaries.codexLauncher, () => {
  let bed: WebSocketTestBed;
  let home: string;
  const upgrades: string[] = [];
  const httpRequests: string[] = [];

  beforeAll(async () => {
    bed = await startWebSocketTestBed();
    bed.gateway.app.server.on('upgrade', (request: IncomingMessage) => {
      upgrades.push(request.url ?? '');
    });
    bed.gateway.app.server.on('request', (request: IncomingMessage) => {
      httpRequests.push(`${request.method} ${request.url}`);
    });
    home = await mkdtemp(path.join(tmpdir(), 'switchyard-codex-ws-'));
  });
  afterAll(async () => {
    await bed.close();
    await rm(home, { recursive: true, force: true });
  });

  it('runs a turn through a WebSocket and ends on response.completed', async () => {
    bed.fake.enqueue({ output: [{ text: 'Hello from the fake upstream.' }] });
    const run = await runCodex(bed, home, 'say hi');
    expect(run.code, run.output).toBe(0);
    expect(run.lastMessage?.trim()).toBe('Hello from the fake upstream.');
    expect(upgrades).toContain('/v1/responses');
    expect(httpRequests.filter((line) => line.startsWith('POST'))).toEqual([]);

    // The turn went through the pipeline: metered, and sent upstream without gateway state.
    const [record] = await bed.gateway.store.usage.listUsage(bed.accountId, 1);
    expect(record).toMatchObject({ surface: 'responses', outcome: 'ok' });
    const [upstream] = bed.generationRequests();
    expect(upstream?.body).toMatchObject({ store: false });
    expect(upstream?.body).not.toHaveProperty('previous_response_id');
    expect(upstream?.body).not.toHaveProperty('generate');
  }, 120_000);
});
