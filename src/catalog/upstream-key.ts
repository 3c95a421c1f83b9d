import { createHash } from 'node:crypto';
import type { ProviderConfig } from '../config/config-schema.ts';

/** One upstream key of a provider, as the router sees it (docs/routing.md). */
export interface UpstreamKey {
  /**
   * Stable and safe to show: a short hash of the secret, or `unset-<variable>` when the variable is
   * empty. The only name a key has in logs, metrics, headers and the admin API.
   */
  id: string;
  /** The environment variable it was read from (undefined: the provider has none). */
  env: string | undefined;
  /** The secret; only the provider transport reads it. */
  secret: string | undefined;
  /** The upstream account's own budgets, when the operator gave them. */
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** A short, stable id of a secret: enough to tell keys apart, useless to call with. */
export function keyIdOf(secret: string): string {
  return `k${createHash('sha256').update(secret).digest('hex').slice(0, 8)}`;
}

function readVariable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The keys a provider's `apiKeyEnv` names, in order, read from the environment once. A provider
 * without `apiKeyEnv` has one key with no secret (an upstream that needs none). The same secret
 * named twice is one key.
 */
export function readUpstreamKeys(
  apiKeyEnv: ProviderConfig['apiKeyEnv'],
  env: NodeJS.ProcessEnv,
): UpstreamKey[] {
  if (apiKeyEnv === undefined) return [{ id: 'none', env: undefined, secret: undefined }];
  const entries = typeof apiKeyEnv === 'string' ? [apiKeyEnv] : apiKeyEnv;
  const keys: UpstreamKey[] = [];
  for (const entry of entries) {
    const spec = typeof entry === 'string' ? { env: entry } : entry;
    const secret = readVariable(spec.env, env);
    const id = secret === undefined ? `unset-${spec.env}` : keyIdOf(secret);
    if (keys.some((key) => key.id === id)) continue;
    keys.push({
      id,
      env: spec.env,
      secret,
      ...('requestsPerMinute' in spec && spec.requestsPerMinute !== undefined
        ? { requestsPerMinute: spec.requestsPerMinute }
        : {}),
      ...('tokensPerMinute' in spec && spec.tokensPerMinute !== undefined
        ? { tokensPerMinute: spec.tokensPerMinute }
        : {}),
    });
  }
  return keys;
}

/** The variable names a provider's `apiKeyEnv` lists (for start-up warnings). */
export function keyVariables(apiKeyEnv: ProviderConfig['apiKeyEnv']): string[] {
  if (apiKeyEnv === undefined) return [];
  if (typeof apiKeyEnv === 'string') return [apiKeyEnv];
  return apiKeyEnv.map((entry) => (typeof entry === 'string' ? entry : entry.env));
}
