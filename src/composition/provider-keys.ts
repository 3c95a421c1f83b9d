import type { Config } from '../config/config-schema.ts';
import { readUpstreamKeys } from '../catalog/upstream-key.ts';

/**
 * Each provider's first upstream key (count_tokens, compaction and transcription call one key;
 * generation routes over all of them: docs/routing.md), read from the environment once: `process.env` is an interceptor
 * that calls getenv, ~3 µs a read on every upstream call in `perf`. A provider the configuration
 * does not name has none. A configuration reload replaces the whole set, read again from the
 * environment then, so a provider that now names another variable gets that variable's key.
 */
export class ProviderKeys {
  #own: (providerId: string) => string | undefined;
  #lookup: (providerId: string) => string | undefined;

  constructor(config: Pick<Config, 'providers'>, env: NodeJS.ProcessEnv) {
    this.#own = rememberProviderKeys(config, env);
    this.#lookup = this.#own;
  }

  /** Bound, so holders may keep the function itself and still follow a reload. */
  readonly get = (providerId: string): string | undefined => this.#lookup(providerId);

  /**
   * A provider the new configuration no longer names keeps its previous key, for the calls that
   * resolved their deployments before the reload and still fall back to it; no new call can reach
   * it, since the catalog no longer lists it.
   */
  replaceWith(config: Pick<Config, 'providers'>, env: NodeJS.ProcessEnv): void {
    const previous = this.#own;
    const next = rememberProviderKeys(config, env);
    this.#own = next;
    this.#lookup = (providerId) =>
      Object.hasOwn(config.providers, providerId) ? next(providerId) : previous(providerId);
  }
}

function rememberProviderKeys(
  config: Pick<Config, 'providers'>,
  env: NodeJS.ProcessEnv,
): (providerId: string) => string | undefined {
  const keys = new Map<string, string | undefined>();
  return (providerId) => {
    if (keys.has(providerId)) return keys.get(providerId);
    const provider = config.providers[providerId];
    const key =
      provider === undefined ? undefined : readUpstreamKeys(provider.apiKeyEnv, env)[0]?.secret;
    if (Object.hasOwn(config.providers, providerId)) keys.set(providerId, key);
    return key;
  };
}
