import type { ClientWorkspace } from './real-client-bed.ts';
import { clientBinaries, requireClientBinary } from './require-client-binary.ts';
import { buildClientEnvironment } from './client-environment.ts';
import { runClientProcess, type ClientRun } from './run-client-process.ts';

export const claudeCodeBinary = clientBinaries.claudeCode;

export interface ClaudeCodeOptions {
  origin: string;
  token: string;
  /** `x-api-key` (ANTHROPIC_API_KEY) or `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN). */
  credential: 'x-api-key' | 'bearer';
  model: string;
  prompt: string;
  workspace: ClientWorkspace;
  /** Tools that run without asking (`--allowedTools`). */
  allowedTools?: string[];
  /** Further client settings (e.g. `ENABLE_TOOL_SEARCH`). */
  extraEnv?: Record<string, string>;
  /** An HTTP MCP server added first with `claude mcp add --transport http` (user scope). */
  mcpServer?: { name: string; url: string; headers: Record<string, string> };
  timeoutMs?: number;
  /** Continues the workspace's last conversation (`--continue`), as a next turn. */
  continueConversation?: boolean;
}

/** The `--output-format json` result object Claude Code prints at the end of a `-p` run. */
export interface ClaudeCodeResult {
  type: string;
  subtype: string;
  is_error: boolean;
  result: string;
  num_turns: number;
  stop_reason?: string;
  api_error_status?: number | null;
  permission_denials: unknown[];
  usage: Record<string, unknown>;
}

export interface ClaudeCodeRun extends ClientRun {
  /** The parsed result, or undefined when stdout held none. */
  result: ClaudeCodeResult | undefined;
}

function parseResult(stdout: string): ClaudeCodeResult | undefined {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as ClaudeCodeResult;
  } catch {
    return undefined;
  }
}

/** `claude -p <prompt> --output-format json` against the gateway (docs/clients.md, Claude Code). */
export async function runClaudeCode(options: ClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const binary = requireClientBinary(claudeCodeBinary);
  const credentialVariable =
    options.credential === 'bearer' ? 'ANTHROPIC_AUTH_TOKEN' : 'ANTHROPIC_API_KEY';
  const env = buildClientEnvironment(process.env, {
    HOME: options.workspace.home,
    ANTHROPIC_BASE_URL: options.origin,
    [credentialVariable]: options.token,
    ANTHROPIC_MODEL: options.model,
    // No update checks or telemetry from a test run.
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...options.extraEnv,
  });
  if (options.mcpServer !== undefined) {
    const { name, url, headers } = options.mcpServer;
    const added = await runClientProcess({
      command: binary,
      args: [
        'mcp',
        'add',
        '--transport',
        'http',
        '--scope',
        'user',
        name,
        url,
        ...Object.entries(headers).flatMap(([header, value]) => [
          '--header',
          `${header}: ${value}`,
        ]),
      ],
      cwd: options.workspace.cwd,
      env,
      timeoutMs: 30_000,
    });
    if (added.code !== 0) {
      return { ...added, result: undefined, stdout: `claude mcp add failed:\n${added.stdout}` };
    }
  }
  const args = ['-p', options.prompt, '--output-format', 'json'];
  if (options.allowedTools !== undefined) args.push('--allowedTools', ...options.allowedTools);
  if (options.continueConversation === true) args.push('--continue');
  const run = await runClientProcess({
    command: binary,
    args,
    cwd: options.workspace.cwd,
    env,
    timeoutMs: options.timeoutMs ?? 90_000,
  });
  return { ...run, result: parseResult(run.stdout) };
}
