import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateClientToken } from '../../src/auth/client-token.ts';
import {
  downloadInstaller,
  installerCommands,
  installerModels,
  makeCommandPath,
  makeHome,
  runProcess,
  startInstallerTestBed,
  upstreamKey,
  type InstallerTestBed,
  type ProcessRun,
} from './installer-test-bed.ts';
import { clientBinaries, clientPath, itWithClient } from '../real-clients/require-client-binary.ts';

const codexBinary = clientPath(clientBinaries.codex);
/** Tests that run Codex: skipped loudly outside CI when it is not installed, failed under CI. */
const itWithCodex = itWithClient(clientBinaries.codex);

describe('GET /install/codex.sh run with sh', () => {
  let bed: InstallerTestBed;
  let script: string;
  let home: string;
  let removeHome: () => Promise<void>;
  let codexHome: string;
  let configPath: string;

  beforeAll(async () => {
    bed = await startInstallerTestBed();
    script = await downloadInstaller(bed.origin, 'codex.sh');
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(async () => {
    ({ home, remove: removeHome } = await makeHome());
    codexHome = path.join(home, 'codex-home');
    configPath = path.join(codexHome, 'config.toml');
    bed.fake.reset();
  });
  afterEach(async () => {
    await removeHome();
  });

  async function install(
    options: { token?: string; env?: Record<string, string> } = {},
  ): Promise<ProcessRun> {
    const file = path.join(home, 'install.sh');
    await writeFile(file, script);
    const bin = await makeCommandPath(path.join(home, 'bin'), installerCommands);
    return runProcess('/bin/sh', [file], {
      env: { HOME: home, PATH: bin, CODEX_HOME: codexHome, ...options.env },
      cwd: home,
      stdin: `${options.token ?? bed.token}\n`,
      timeoutMs: 30_000,
    });
  }

  /** The [model_providers.switchyard] table the installer owns. */
  function providerTable(): string {
    return [
      '[model_providers.switchyard]',
      'name = "Switchyard"',
      `base_url = "${bed.origin}/v1"`,
      'wire_api = "responses"',
      `experimental_bearer_token = "${bed.token}"`,
    ].join('\n');
  }

  /** The root keys the installer writes for the chosen model (the test model's window: 200000). */
  const modelKeys = [
    'model_provider = "switchyard"',
    `model = "${installerModels.responses}"`,
    'model_context_window = 200000',
  ].join('\n');

  async function runCodex(): Promise<ProcessRun> {
    // Only CODEX_HOME carries the configuration: no key variable of this process leaks in.
    return runProcess(codexBinary, ['exec', '--skip-git-repo-check', 'say hi'], {
      env: { HOME: home, PATH: process.env.PATH, CODEX_HOME: codexHome },
      cwd: home,
      timeoutMs: 60_000,
    });
  }

  function expectUpstreamCall(): void {
    const generation = bed.fake.requests.filter((request) => request.path === '/v1/responses');
    expect(generation).toHaveLength(1);
    const upstream = generation[0];
    expect(upstream?.headers.authorization).toBe(`Bearer ${upstreamKey}`);
    expect(upstream?.body).toMatchObject({ model: `${installerModels.responses}-upstream` });
    expect(JSON.stringify(upstream?.headers)).not.toContain(bed.token);
  }

  itWithCodex(
    'writes a new config.toml (mode 600) with which Codex answers through the gateway',
    async () => {
      const run = await install({ env: { SWITCHYARD_MODEL: installerModels.responses } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain(bed.token);
      expect(run.stdout).toContain(configPath);
      expect(await readFile(configPath, 'utf8')).toBe(`${modelKeys}\n\n${providerTable()}\n`);
      expect((await stat(configPath)).mode & 0o777).toBe(0o600);

      bed.fake.enqueue({
        output: [{ text: 'Hi from the fake upstream, via Switchyard.' }],
        usage: { input: 12, output: 9 },
      });
      const codex = await runCodex();
      expect(codex.timedOut).toBe(false);
      expect(codex.code, codex.stderr).toBe(0);
      expect(codex.stdout.trim()).toBe('Hi from the fake upstream, via Switchyard.');
      // Codex accepts every key the installer wrote (it names the ones it does not know).
      expect(codex.stderr).not.toContain('unrecognized configuration');
      expectUpstreamCall();
    },
    90_000,
  );

  itWithCodex(
    'keeps the rest of an existing config, replaces its own keys and table, backs it up',
    async () => {
      await mkdir(codexHome, { recursive: true });
      const original = [
        '# my settings',
        'model = "gpt-old"',
        'model_provider = "openai"',
        'model_context_window = 1000',
        'model_reasoning_effort = "low"',
        '',
        '[model_providers.switchyard]',
        'name = "an earlier install"',
        'base_url = "http://old.example/v1"',
        '',
        '[model_providers.other]',
        'name = "Other"',
        'base_url = "http://other.example/v1"',
        'wire_api = "responses"',
        '',
        '[tui]',
        'notifications = true',
        '',
      ].join('\n');
      await writeFile(configPath, original);

      const run = await install({ env: { SWITCHYARD_MODEL: installerModels.responses } });
      expect(run.code).toBe(0);
      expect(await readFile(configPath, 'utf8')).toBe(
        [
          modelKeys,
          '# my settings',
          'model_reasoning_effort = "low"',
          '',
          '[model_providers.other]',
          'name = "Other"',
          'base_url = "http://other.example/v1"',
          'wire_api = "responses"',
          '',
          '[tui]',
          'notifications = true',
          '',
          providerTable(),
          '',
        ].join('\n'),
      );
      const backups = (await readdir(codexHome)).filter((name) =>
        name.startsWith('config.toml.switchyard-backup-'),
      );
      expect(backups).toHaveLength(1);
      const backupPath = path.join(codexHome, backups[0] as string);
      expect(await readFile(backupPath, 'utf8')).toBe(original);
      expect(run.stdout).toContain(backupPath);

      // Installing twice leaves one table and one set of root keys, and Codex accepts the file.
      const again = await install({ env: { SWITCHYARD_MODEL: installerModels.responses } });
      expect(again.code).toBe(0);
      const text = await readFile(configPath, 'utf8');
      expect(text.match(/\[model_providers\.switchyard\]/g)).toHaveLength(1);
      expect(text.match(/^model_provider = /gm)).toHaveLength(1);
      expect(text.match(/^model_context_window = /gm)).toHaveLength(1);
      bed.fake.enqueue({ output: [{ text: 'Still here.' }], usage: { input: 3, output: 2 } });
      const codex = await runCodex();
      expect(codex.code, codex.stderr).toBe(0);
      expect(codex.stdout.trim()).toBe('Still here.');
      expectUpstreamCall();
    },
    90_000,
  );

  it('stops on a token the gateway refuses (401) and writes nothing', async () => {
    const unknown = generateClientToken().token;
    const run = await install({ token: unknown });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 401');
    expect(run.stderr + run.stdout).not.toContain(unknown);
    await expect(stat(codexHome)).rejects.toThrow();
  });

  it('reports the gateway message when the token belongs to another interface', async () => {
    const { token } = await bed.gateway.createToken({ isAdmin: true, interface: 'connected' });
    const run = await install({ token });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 400');
    expect(run.stderr).toContain("bound to the 'connected' interface");
    await expect(stat(codexHome)).rejects.toThrow();
  });
});
