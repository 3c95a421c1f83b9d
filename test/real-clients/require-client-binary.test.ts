import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chooseClientTestMode,
  clientBinaries,
  clientsFolder,
  requireClientBinary,
} from './require-client-binary.ts';

describe('the real clients, installed in their own folder', () => {
  it('are looked for under test/real-clients, not in the root package', () => {
    expect(path.relative(process.cwd(), clientsFolder)).toBe(path.join('test', 'real-clients'));
  });

  it('fails loudly, naming the install command, when a client is missing', () => {
    expect(() => requireClientBinary(clientBinaries.claudeCode, '/nonexistent/folder')).toThrow(
      /missing.*npm ci --prefix test\/real-clients/,
    );
  });

  it('runs the tests when the client is there, skips them outside CI, fails them under CI', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'switchyard-clients-'));
    try {
      const missing = { root };
      expect(chooseClientTestMode(clientBinaries.codex, { ...missing, env: {} })).toBe('skip');
      expect(chooseClientTestMode(clientBinaries.codex, { ...missing, env: { CI: 'false' } })).toBe(
        'skip',
      );
      expect(chooseClientTestMode(clientBinaries.codex, { ...missing, env: { CI: 'true' } })).toBe(
        'fail',
      );
      expect(chooseClientTestMode('', { root, env: { CI: 'true' } })).toBe('run');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe.runIf(chooseClientTestMode(clientBinaries.claudeCode) !== 'skip')(
  'the installed clients',
  () => {
    it('are both there (CI installs them)', () => {
      expect(requireClientBinary(clientBinaries.claudeCode)).toMatch(
        /node_modules\/\.bin\/claude$/,
      );
      expect(requireClientBinary(clientBinaries.codexLauncher)).toMatch(/codex\.js$/);
    });
  },
);
