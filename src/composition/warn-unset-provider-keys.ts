import type { Config } from '../config/config-schema.ts';
import { keyVariables } from '../catalog/upstream-key.ts';
import { readProviderKey } from '../config/load-config.ts';
import type { StartupWarn } from './open-store.ts';

/**
 * One start-up warning per provider (generation, transcription, search, images) whose `apiKeyEnv`
 * names a variable that is unset or empty: its calls go upstream without a credential and come
 * back refused, which the clients only see as a 502. The warning names the variable, never a
 * value.
 */
export function warnUnsetProviderKeys(
  config: Config,
  env: NodeJS.ProcessEnv,
  warn: StartupWarn,
): void {
  const providers: Array<{ id: string; apiKeyEnv: string }> = [
    ...Object.entries(config.providers).flatMap(([id, provider]) =>
      keyVariables(provider.apiKeyEnv).map((apiKeyEnv) => ({ id, apiKeyEnv })),
    ),
    ...[...(config.search?.providers ?? []), ...(config.images?.providers ?? [])].flatMap(
      ({ id, apiKeyEnv }) => (apiKeyEnv === undefined ? [] : [{ id, apiKeyEnv }]),
    ),
  ];
  for (const { id, apiKeyEnv } of providers) {
    if (readProviderKey(apiKeyEnv, env) !== undefined) continue;
    warn(
      `provider "${id}": the environment variable ${apiKeyEnv} is unset or empty, so its calls are sent without a credential; set it and restart`,
      { provider: id, apiKeyEnv },
    );
  }
}
