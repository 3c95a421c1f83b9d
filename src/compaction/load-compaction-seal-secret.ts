import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { minimumSealSecretLength } from './compaction-seal.ts';

export const sealSecretFileName = 'compaction-seal.key';

export interface SealSecretSource {
  /** The secret from the environment variable `secretEnv` names, when set. */
  secret: string | undefined;
  secretEnv: string;
  dataDir: string;
  /** True when several processes share state (PostgreSQL): they must share the secret too. */
  sharedStore: boolean;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function readSecretFile(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The secret compaction items are sealed with (docs/decisions/0013). From the environment when
 * set; otherwise, on the embedded store, made once and kept in the data directory readable by
 * the owner only, so items stay valid across restarts. Scaled-out processes each have their own
 * data directory, so there the environment variable is required: items sealed by one process
 * must open in every other.
 */
export async function loadCompactionSealSecret(source: SealSecretSource): Promise<string> {
  if (source.secret !== undefined) {
    if (source.secret.length < minimumSealSecretLength) {
      throw new Error(
        `${source.secretEnv} must be at least ${minimumSealSecretLength} characters (e.g. openssl rand -base64 32).`,
      );
    }
    return source.secret;
  }
  if (source.sharedStore) {
    throw new Error(
      `${source.secretEnv} must be set when store.backend is "postgres": every gateway process must seal compaction items with the same secret.`,
    );
  }
  const file = path.join(source.dataDir, sealSecretFileName);
  const existing = await readSecretFile(file);
  if (existing === undefined) {
    await mkdir(source.dataDir, { recursive: true });
    const created = randomBytes(32).toString('base64url');
    try {
      await writeFile(file, `${created}\n`, { mode: 0o600, flag: 'wx' });
      return created;
    } catch (error) {
      // Another process on the same directory won the race: use its secret.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const secret = existing ?? (await readSecretFile(file)) ?? '';
  if (secret.length < minimumSealSecretLength) {
    throw new Error(
      `${file} does not hold a usable compaction seal secret; delete it to make a new one (items sealed so far then stop opening).`,
    );
  }
  return secret;
}
