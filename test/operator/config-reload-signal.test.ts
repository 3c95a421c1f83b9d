import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApiTarget, createAdminApiClient } from '../../src/cli/admin-api-client.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { freePort } from '../support/free-port.ts';
import { streamMessage, testModel } from '../support/test-gateway.ts';

/**
 * SIGHUP reads the configuration file again (docs/operations.md, "Reloading the configuration"):
 * `src/main.ts` in a process of its own, as `npm start` runs it without the build step, over the
 * fake upstream.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const adminToken = 'reload-signal-admin-secret';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

describe('SIGHUP reloads the configuration file', () => {
  let fake: FakeUpstream;
  let directory: string;
  let configPath: string;
  let port: number;
  let base: string;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let token: string;
  let accountId: string;

  const writeConfig = (models: unknown[]) =>
    writeFile(
      configPath,
      JSON.stringify({
        dataDir: path.join(directory, 'data'),
        server: { host: '127.0.0.1', port, logLevel: 'info' },
        providers: { up: { kind: 'anthropic', baseUrl: fake.url } },
        models,
      }),
    );
  const first = (input: number, output: number) =>
    testModel('first', 'up', { pricing: { input, output } });
  const lines = (): LogLine[] =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  /** The first log line after the first `after` lines that matches. */
  const waitForLine = async (after: number, matches: (line: LogLine) => boolean) => {
    const startedAt = Date.now();
    for (;;) {
      const found = lines().slice(after).find(matches);
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`gateway exited:\n${output}`);
      if (Date.now() - startedAt > 30_000) throw new Error(`no such line:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown, auth = adminToken) => {
    const response = await request(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${auth}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // Test-side reading of the gateway's answers: their shapes are asserted where they matter.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.statusCode, json: (await response.body.json()) as any };
  };
  const listedModels = async () =>
    (await call('GET', '/v1/models', undefined, token)).json.data.map(
      (model: { id: string }) => model.id,
    );
  const message = async (model: string) => {
    const response = await request(`${base}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': token,
      },
      body: JSON.stringify({
        model,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    await response.body.text();
    return response.statusCode;
  };
  /** The costs of the account's usage records, in micro-credits, in the order the calls ended. */
  const costs = async (count: number): Promise<number[]> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const { json } = await call('GET', `/api/admin/accounts/${accountId}`);
      const usage = json.usage as Array<{ cost_micro: number }>;
      if (usage.length >= count) return usage.map((record) => record.cost_micro).reverse();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('usage records were not written');
  };

  beforeAll(async () => {
    fake = await startFakeUpstream();
    directory = await mkdtemp(path.join(tmpdir(), 'switchyard-reload-'));
    configPath = path.join(directory, 'switchyard.config.json');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await writeConfig([first(1, 2)]);
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        SWITCHYARD_CONFIG: configPath,
        SWITCHYARD_ADMIN_TOKEN: adminToken,
      },
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', resolve));
    await waitForLine(0, (line) => line.msg.startsWith('Server listening'));

    const account = await call('POST', '/api/admin/accounts', { name: 'reload' });
    accountId = account.json.id;
    await call('POST', `/api/admin/accounts/${accountId}/credits`, {
      amount: '100',
      reason: 'reload test',
    });
    token = (await call('POST', `/api/admin/accounts/${accountId}/tokens`, { name: 'reload' })).json
      .token;
  }, 60_000);

  afterAll(async () => {
    // Only the gateway this suite started, by its pid.
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGKILL');
      await exited;
    }
    await fake.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('lets a stream in flight finish on the old catalog while new requests see the new one', async () => {
    const text = 'a stream that takes its time to arrive at the client, piece by piece';
    fake.enqueue({
      output: [{ text }],
      usage: { input: 1_000, output: 1_000 },
      chunkDelayMs: 100,
    });
    const stream = await streamMessage(base, token, { model: 'first', maxTokens: 64 });
    expect(stream.statusCode).toBe(200);
    let streamEnded = false;
    const received = stream.body.text().then((body) => {
      streamEnded = true;
      return body;
    });

    await writeConfig([first(10, 20), testModel('second', 'up')]);
    const mark = lines().length;
    process.kill(child.pid as number, 'SIGHUP');
    const reloaded = await waitForLine(mark, (line) => line.msg === 'configuration reloaded');
    expect(streamEnded).toBe(false);
    expect(reloaded).toMatchObject({
      level: 30,
      via: 'SIGHUP',
      models: { added: ['second'], removed: [], changed: ['first'] },
    });

    expect(await listedModels()).toEqual(['first', 'second']);
    fake.enqueue({ output: [{ text: 'hello' }], usage: { input: 1_000, output: 1_000 } });
    expect(await message('first')).toBe(200);

    const body = await received;
    const deltas = body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { delta?: { text?: string } })
      .map((event) => event.delta?.text ?? '')
      .join('');
    expect(deltas).toBe(text);
    expect(body).toContain('message_stop');
    // 1 000 tokens in and out: at 1 and 2 credits per million for the stream that began before
    // the reload, at 10 and 20 for the call after it (which ended first).
    expect(await costs(2)).toEqual([30_000, 3_000]);
    expect(child.exitCode).toBeNull();
  }, 60_000);

  it('refuses an invalid file, logging why, and keeps answering with the running catalog', async () => {
    await writeFile(configPath, '{ "models": [');
    const mark = lines().length;
    process.kill(child.pid as number, 'SIGHUP');
    const refused = await waitForLine(mark, (line) => line.msg.includes('reload refused'));
    expect(refused.level).toBe(50);
    expect(refused.via).toBe('SIGHUP');
    expect(String(refused.reason)).toContain('is not valid JSON');
    expect(await listedModels()).toEqual(['first', 'second']);
    expect(await message('second')).toBe(200);
    expect(child.exitCode).toBeNull();
  }, 30_000);

  it("reloads through the CLI's `config reload`, which calls the admin API at --url", async () => {
    const out: string[] = [];
    const errors: string[] = [];
    const io = {
      stdout: (text: string) => out.push(text),
      stderr: (text: string) => errors.push(text),
    };
    // The CLI's own configuration names another port: --url says where the gateway is.
    const cliConfig = parseConfig({ server: { port: 1 } });
    const adminApi = (url: string | undefined) =>
      createAdminApiClient(adminApiTarget(cliConfig, { SWITCHYARD_ADMIN_TOKEN: adminToken }, url));
    const reload = () =>
      runCli(
        ['--url', base, 'config', 'reload'],
        async () => {
          throw new Error('config reload never opens the store');
        },
        io,
        Date.now,
        adminApi,
      );

    // The file is still the invalid one.
    expect(await reload()).toBe(1);
    expect(errors.join('')).toContain('the gateway answered 400');
    expect(errors.join('')).toContain('is not valid JSON');

    await writeConfig([testModel('second', 'up'), testModel('third', 'up')]);
    expect(await reload()).toBe(0);
    expect(out.join('')).toContain('configuration reloaded');
    expect(out.join('')).toContain('models: added third; removed first');
    expect(await listedModels()).toEqual(['second', 'third']);

    // Without the admin token the CLI says which variable to set, and calls nothing.
    errors.length = 0;
    const withoutToken = await runCli(
      ['config', 'reload'],
      async () => {
        throw new Error('never opened');
      },
      io,
      Date.now,
      (url) => createAdminApiClient(adminApiTarget(cliConfig, {}, url)),
    );
    expect(withoutToken).toBe(1);
    expect(errors.join('')).toContain('SWITCHYARD_ADMIN_TOKEN is unset or empty');
  }, 30_000);
});
