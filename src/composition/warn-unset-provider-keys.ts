import type { Config } from '../config/config-schema.ts';
import { readProviderKey } from '../config/load-config.ts';
import type { StartupWarn } from './open-store.ts';

/**
 * One start-up warning per provider whose `apiKeyEnv` names a variable that is unset or empty:
 * its calls go upstream without a credential and come back refused, which the clients only see
 * as a 502. The warning names the variable, never a value.
 */
export function warnUnsetProviderKeys(
  config: Config,
  env: NodeJS.ProcessEnv,
  warn: StartupWarn,
): void {
  for (const [providerId, provider] of Object.entries(config.providers)) {
    if (provider.apiKeyEnv === undefined) continue;
    if (readProviderKey(provider.apiKeyEnv, env) !== undefined) continue;
    warn(
      `provider "${providerId}": the environment variable ${provider.apiKeyEnv} is unset or empty, so its calls are sent without a credential; set it and restart`,
      { provider: providerId, apiKeyEnv: provider.apiKeyEnv },
    );
  }
}
