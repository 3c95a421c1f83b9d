import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCompactionSealSecret, sealSecretFileName } from './load-compaction-seal-secret.ts';

describe('loadCompactionSealSecret', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'switchyard-seal-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const source = (overrides: Partial<Parameters<typeof loadCompactionSealSecret>[0]> = {}) => ({
    secret: undefined,
    secretEnv: 'SWITCHYARD_SEAL_KEY',
    dataDir: path.join(root, 'data'),
    sharedStore: false,
    ...overrides,
  });

  it('makes a secret once in the data directory, readable by the owner only, and keeps it', async () => {
    const first = await loadCompactionSealSecret(source());
    const file = path.join(root, 'data', sealSecretFileName);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await loadCompactionSealSecret(source())).toBe(first);
  });

  it('prefers the configured secret and writes no file', async () => {
    const secret = 'x'.repeat(40);
    expect(await loadCompactionSealSecret(source({ secret }))).toBe(secret);
    await expect(stat(path.join(root, 'data', sealSecretFileName))).rejects.toThrow();
  });

  it('refuses a configured secret that is too short, naming the variable', async () => {
    await expect(loadCompactionSealSecret(source({ secret: 'short' }))).rejects.toThrow(
      /SWITCHYARD_SEAL_KEY must be at least 32/,
    );
  });

  it('requires the configured secret when processes share a store', async () => {
    await expect(loadCompactionSealSecret(source({ sharedStore: true }))).rejects.toThrow(
      /SWITCHYARD_SEAL_KEY must be set when store.backend is "postgres"/,
    );
  });

  it('refuses a damaged secret file instead of replacing it', async () => {
    await loadCompactionSealSecret(source());
    const file = path.join(root, 'data', sealSecretFileName);
    await writeFile(file, 'tiny\n');
    await expect(loadCompactionSealSecret(source())).rejects.toThrow(/usable/);
  });
});
