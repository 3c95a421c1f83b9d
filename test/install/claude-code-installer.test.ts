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

const claudeBinary = clientPath(clientBinaries.claudeCode);
/** Tests that run Claude Code: skipped loudly outside CI when it is not installed, failed under CI. */
const itWithClaudeCode = itWithClient(clientBinaries.claudeCode);

interface Settings {
  env: Record<string, string>;
  [key: string]: unknown;
}

describe('GET /install/claude-code.sh run with sh', () => {
  let bed: InstallerTestBed;
  let script: string;
  let home: string;
  let removeHome: () => Promise<void>;
  let settingsPath: string;

  beforeAll(async () => {
    bed = await startInstallerTestBed();
    script = await downloadInstaller(bed.origin, 'claude-code.sh');
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(async () => {
    ({ home, remove: removeHome } = await makeHome());
    settingsPath = path.join(home, '.claude', 'settings.json');
    bed.fake.reset();
  });
  afterEach(async () => {
    await removeHome();
  });

  /** Runs the installer with only the given commands on PATH and the token on stdin. */
  async function install(
    options: { token?: string; commands?: string[]; env?: Record<string, string> } = {},
  ): Promise<ProcessRun> {
    const file = path.join(home, 'install.sh');
    await writeFile(file, script);
    const bin = await makeCommandPath(
      path.join(home, 'bin'),
      options.commands ?? [...installerCommands, 'node'],
    );
    return runProcess('/bin/sh', [file], {
      env: { HOME: home, PATH: bin, ...options.env },
      cwd: home,
      stdin: `${options.token ?? bed.token}\n`,
      timeoutMs: 30_000,
    });
  }

  async function readSettings(): Promise<Settings> {
    return JSON.parse(await readFile(settingsPath, 'utf8')) as Settings;
  }

  async function fileMode(file: string): Promise<number> {
    return (await stat(file)).mode & 0o777;
  }

  async function backups(): Promise<string[]> {
    const names = await readdir(path.dirname(settingsPath));
    return names.filter((name) => name.startsWith('settings.json.switchyard-backup-'));
  }

  function expectTokenNeverPrinted(run: ProcessRun, token = bed.token): void {
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
  }

  it('writes the gateway into a new settings file, private to the user', async () => {
    const run = await install({ env: { SWITCHYARD_MODEL: installerModels.messages } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectTokenNeverPrinted(run);
    expect(run.stdout).toContain(settingsPath);
    expect(await readSettings()).toEqual({
      env: {
        ANTHROPIC_BASE_URL: bed.origin,
        ANTHROPIC_AUTH_TOKEN: bed.token,
        ANTHROPIC_MODEL: installerModels.messages,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: installerModels.messages,
      },
    });
    expect(await fileMode(settingsPath)).toBe(0o600);
    expect(await backups()).toEqual([]);
    // The token was checked against the model list, not sent anywhere else.
    expect(bed.fake.requests).toEqual([]);
  });

  it('picks the first listed model when none is named and no terminal is attached', async () => {
    const run = await install();
    expect(run.code).toBe(0);
    const first = bed.gateway.catalog.all()[0]?.id;
    expect((await readSettings()).env.ANTHROPIC_MODEL).toBe(first);
  });

  const mergers = [
    { tool: 'node', commands: [...installerCommands, 'node'] },
    { tool: 'python3', commands: [...installerCommands, 'python3'] },
  ];
  for (const { tool, commands } of mergers) {
    it(`merges an existing settings file with ${tool}, keeping other keys, with a backup`, async (context) => {
      const probe = await makeCommandPath(path.join(home, 'probe'), [tool]);
      if ((await readdir(probe)).length === 0) context.skip(`${tool} is not installed`);
      await mkdir(path.dirname(settingsPath), { recursive: true });
      const original = {
        permissions: { allow: ['Bash(ls:*)'] },
        env: { KEEP_ME: 'yes', ANTHROPIC_API_KEY: 'sk-ant-old', ANTHROPIC_MODEL: 'old-model' },
        theme: 'dark',
      };
      const originalText = `${JSON.stringify(original, null, 4)}\n`;
      await writeFile(settingsPath, originalText, { mode: 0o644 });

      const run = await install({ commands, env: { SWITCHYARD_MODEL: installerModels.responses } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expectTokenNeverPrinted(run);
      expect(await readSettings()).toEqual({
        permissions: { allow: ['Bash(ls:*)'] },
        theme: 'dark',
        env: {
          KEEP_ME: 'yes',
          ANTHROPIC_BASE_URL: bed.origin,
          ANTHROPIC_AUTH_TOKEN: bed.token,
          ANTHROPIC_MODEL: installerModels.responses,
          ANTHROPIC_DEFAULT_HAIKU_MODEL: installerModels.responses,
        },
      });
      expect(await fileMode(settingsPath)).toBe(0o600);
      const [backup] = await backups();
      expect(backup).toBeDefined();
      const backupPath = path.join(path.dirname(settingsPath), backup as string);
      expect(await readFile(backupPath, 'utf8')).toBe(originalText);
      expect(await fileMode(backupPath)).toBe(0o600);
      expect(run.stdout).toContain(backupPath);
    });
  }

  it('without node or python3 backs up an existing file and writes a fresh one', async () => {
    await mkdir(path.dirname(settingsPath), { recursive: true });
    await writeFile(settingsPath, '{"theme": "dark"}\n');
    const run = await install({ commands: installerCommands });
    expect(run.code).toBe(0);
    expectTokenNeverPrinted(run);
    const settings = await readSettings();
    expect(settings.theme).toBeUndefined();
    expect(settings.env.ANTHROPIC_AUTH_TOKEN).toBe(bed.token);
    expect(run.stdout).toContain('copy any other settings you need back from the backup');
    const [backup] = await backups();
    expect(await readFile(path.join(home, '.claude', backup as string), 'utf8')).toBe(
      '{"theme": "dark"}\n',
    );
  });

  it('replaces a settings file that is not JSON, keeping it as the backup', async () => {
    await mkdir(path.dirname(settingsPath), { recursive: true });
    await writeFile(settingsPath, 'not json at all');
    const run = await install();
    expect(run.code).toBe(0);
    expect((await readSettings()).env.ANTHROPIC_BASE_URL).toBe(bed.origin);
    expect(await backups()).toHaveLength(1);
  });

  it('checks the token with GNU wget when curl is missing', async (context) => {
    const probe = await makeCommandPath(path.join(home, 'probe'), ['wget']);
    if ((await readdir(probe)).length === 0) context.skip('wget is not installed');
    const run = await install({ commands: installerCommands.filter((name) => name !== 'curl') });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await readSettings()).env.ANTHROPIC_AUTH_TOKEN).toBe(bed.token);
  });

  it('stops without curl or wget', async () => {
    const commands = installerCommands.filter((name) => name !== 'curl' && name !== 'wget');
    const run = await install({ commands });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Neither curl nor GNU wget was found');
    await expect(stat(settingsPath)).rejects.toThrow();
  });

  it('stops on a token the gateway refuses (401) and writes nothing', async () => {
    const unknown = generateClientToken().token;
    const run = await install({ token: unknown });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 401');
    expectTokenNeverPrinted(run, unknown);
    await expect(stat(path.join(home, '.claude'))).rejects.toThrow();
  });

  it('refuses a provider key before any request and an empty answer', async () => {
    const foreign = await install({ token: 'sk-ant-api03-not-a-gateway-token' });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('not a Switchyard client token');
    expect(foreign.stderr).not.toContain('sk-ant-api03');
    const empty = await install({ token: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('No token was entered');
    await expect(stat(path.join(home, '.claude'))).rejects.toThrow();
  });

  it('stops when the named model is not listed', async () => {
    const run = await install({ env: { SWITCHYARD_MODEL: 'no-such-model' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"no-such-model" is not in the gateway\'s model list');
    await expect(stat(path.join(home, '.claude'))).rejects.toThrow();
  });

  itWithClaudeCode(
    'Claude Code then answers through the gateway with the written settings',
    async () => {
      const install_ = await install({ env: { SWITCHYARD_MODEL: installerModels.messages } });
      expect(install_.code).toBe(0);
      bed.fake.enqueue({
        output: [{ text: 'Hi from the fake upstream, via Switchyard.' }],
        usage: { input: 12, output: 9 },
      });
      // Only HOME carries the configuration: no ANTHROPIC_* variable of this process leaks in.
      const run = await runProcess(claudeBinary, ['-p', 'say hi', '--output-format', 'json'], {
        env: {
          HOME: home,
          PATH: process.env.PATH,
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        cwd: home,
        timeoutMs: 60_000,
      });
      expect(run.timedOut).toBe(false);
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { result: string; is_error: boolean };
      expect(result.is_error).toBe(false);
      expect(result.result).toBe('Hi from the fake upstream, via Switchyard.');
      const generation = bed.fake.requests.filter((request) => request.path === '/v1/messages');
      expect(generation).toHaveLength(1);
      const upstream = generation[0];
      expect(upstream?.headers['x-api-key']).toBe(upstreamKey);
      expect(upstream?.body).toMatchObject({ model: `${installerModels.messages}-upstream` });
      expect(JSON.stringify(upstream?.headers)).not.toContain(bed.token);
    },
    90_000,
  );
});
