import { describe, expect, it } from 'vitest';
import { requireClientBinary } from './require-client-binary.ts';
import { claudeCodeBinary } from './run-claude-code.ts';
import { codexLauncher } from './run-codex.ts';

describe('requireClientBinary', () => {
  it('finds both installed clients', () => {
    expect(requireClientBinary(claudeCodeBinary)).toMatch(/node_modules\/\.bin\/claude$/);
    expect(requireClientBinary(codexLauncher)).toMatch(/codex\.js$/);
  });

  it('fails loudly, naming the package to install, when a client is missing', () => {
    expect(() => requireClientBinary('node_modules/.bin/claude', '/nonexistent/repo')).toThrow(
      /missing.*@anthropic-ai\/claude-code/,
    );
  });
});
