/**
 * Variables of the test process that would point a client elsewhere or hand it a credential:
 * the vendors' own keys and base URLs, and the markers of a surrounding Claude Code or Codex
 * session (a developer may run the suite from one).
 */
const inheritedClientVariable = /^(ANTHROPIC_|OPENAI_|CLAUDE_|CLAUDECODE|CODEX_)/;

/**
 * The environment a real client runs with: the test process's own, scrubbed of every client
 * variable, plus what the test sets (HOME, base URL, token...).
 */
export function buildClientEnvironment(
  own: NodeJS.ProcessEnv,
  set: Record<string, string>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(own)) {
    if (value !== undefined && !inheritedClientVariable.test(name)) env[name] = value;
  }
  // XDG paths would otherwise lead a client to the developer's own configuration.
  for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']) {
    delete env[name];
  }
  return { ...env, ...set };
}
