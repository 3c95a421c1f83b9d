import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildClientEnvironment } from './client-environment.ts';
import type { ClientWorkspace } from './real-client-bed.ts';
import { clientBinaries, requireClientBinary } from './require-client-binary.ts';
import { runClientProcess, type ClientRun } from './run-client-process.ts';

export const codexLauncher = clientBinaries.codexLauncher;

/** The variable named by `env_key`: Codex sends its value as `Authorization: Bearer`. */
const tokenVariable = 'SWITCHYARD_TOKEN';

export interface CodexOptions {
  origin: string;
  token: string;
  model: string;
  prompt: string;
  workspace: ClientWorkspace;
  /** `codex exec --sandbox` (default: Codex's own, read-only). */
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** An MCP server over streamable HTTP, with the client token as its bearer token. */
  mcpServer?: { name: string; url: string };
  timeoutMs?: number;
  /** More `config.toml` lines: before every table, and in the provider's table. */
  extraConfig?: { root?: string[]; provider?: string[] };
}

export interface CodexRun extends ClientRun {
  /** The agent's last message (`--output-last-message`), or undefined when none was written. */
  lastMessage: string | undefined;
}

/** docs/clients.md, Codex CLI: a custom provider speaking the responses dialect to the gateway. */
function renderConfig(
  origin: string,
  model: string,
  extra: CodexOptions['extraConfig'] = {},
  mcpServer?: CodexOptions['mcpServer'],
): string {
  const mcp =
    mcpServer === undefined
      ? []
      : [
          // docs/clients.md: `url` and `bearer_token_env_var` (the gateway token, never in the
          // file).
          `[mcp_servers.${mcpServer.name}]`,
          `url = ${JSON.stringify(mcpServer.url)}`,
          `bearer_token_env_var = ${JSON.stringify(tokenVariable)}`,
          '',
        ];
  return [
    `model = ${JSON.stringify(model)}`,
    'model_provider = "switchyard"',
    ...(extra.root ?? []),
    '',
    '[model_providers.switchyard]',
    'name = "switchyard"',
    `base_url = ${JSON.stringify(`${origin}/v1`)}`,
    `env_key = ${JSON.stringify(tokenVariable)}`,
    'wire_api = "responses"',
    ...(extra.provider ?? []),
    '',
    ...mcp,
  ].join('\n');
}

/** `codex exec --skip-git-repo-check <prompt>` with a private CODEX_HOME. */
export async function runCodex(options: CodexOptions): Promise<CodexRun> {
  const launcher = requireClientBinary(codexLauncher);
  const codexHome = path.join(options.workspace.home, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    path.join(codexHome, 'config.toml'),
    renderConfig(options.origin, options.model, options.extraConfig, options.mcpServer),
  );
  const lastMessageFile = path.join(options.workspace.home, 'last-message.txt');
  const env = buildClientEnvironment(process.env, {
    HOME: options.workspace.home,
    CODEX_HOME: codexHome,
    [tokenVariable]: options.token,
  });
  const args = [
    launcher,
    'exec',
    '--skip-git-repo-check',
    '--color',
    'never',
    '--output-last-message',
    lastMessageFile,
    '--cd',
    options.workspace.cwd,
  ];
  if (options.sandbox !== undefined) args.push('--sandbox', options.sandbox);
  args.push(options.prompt);
  const run = await runClientProcess({
    command: process.execPath,
    args,
    cwd: options.workspace.cwd,
    env,
    timeoutMs: options.timeoutMs ?? 90_000,
  });
  const lastMessage = await readFile(lastMessageFile, 'utf8').catch(() => undefined);
  return { ...run, lastMessage };
}
