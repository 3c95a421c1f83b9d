import { describe, expect, it } from 'vitest';
import { buildClientEnvironment } from './client-environment.ts';

describe('buildClientEnvironment', () => {
  const own = {
    PATH: '/usr/bin',
    LANG: 'C.UTF-8',
    ANTHROPIC_API_KEY: 'sk-ant-developer',
    ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
    OPENAI_API_KEY: 'sk-developer',
    OPENAI_BASE_URL: 'https://api.openai.com/v1',
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    CODEX_HOME: '/home/developer/.codex',
    XDG_CONFIG_HOME: '/home/developer/.config',
    HOME: '/home/developer',
  };

  it('keeps ordinary variables and drops every client key, base URL and session marker', () => {
    const env = buildClientEnvironment(own, {});
    expect(env).toEqual({ PATH: '/usr/bin', LANG: 'C.UTF-8', HOME: '/home/developer' });
  });

  it('sets what the test gives, over what the process had', () => {
    const env = buildClientEnvironment(own, {
      HOME: '/tmp/run-1/home',
      ANTHROPIC_AUTH_TOKEN: 'sy_token',
    });
    expect(env.HOME).toBe('/tmp/run-1/home');
    expect(env.ANTHROPIC_AUTH_TOKEN).toBe('sy_token');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
  });
});
