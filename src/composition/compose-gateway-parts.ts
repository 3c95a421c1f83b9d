import { Authenticator } from '../auth/authenticator.ts';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { Config } from '../config/config-schema.ts';
import { readProviderKey } from '../config/load-config.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { OpenSessions } from '../generation/open-sessions.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { UpstreamPools } from '../providers/shared/upstream-pool.ts';
import type { Store } from '../store/store.ts';

/** The parts every feature shares: catalog, authentication, upstream pools and billing. */
export function composeGatewayParts(options: {
  config: Config;
  env: NodeJS.ProcessEnv;
  store: Store;
  rateLimiter: RateLimiter;
  settlements: SettlementOutbox;
  logError: GatewayParts['logError'];
  logEvent: GatewayParts['logEvent'];
  /** The clock (epoch milliseconds); tests move it to cross time windows. */
  now?: () => number;
}): GatewayParts {
  const { config, env, store, rateLimiter, settlements, logError, logEvent } = options;
  const now = options.now ?? (() => Date.now());
  return {
    config,
    env,
    catalog: new ModelCatalog(config),
    authenticator: new Authenticator(store.apiKeys, store.accounts),
    pools: new UpstreamPools(),
    billing: {
      ledger: store.ledger,
      usage: store.usage,
      settlements,
      rateLimiter,
      limits: config.limits,
      holdTtlMs: config.billing.holdTtlSeconds * 1000,
      minimumOutputTokens: config.billing.minimumOutputTokens,
      now,
      open: new OpenSessions(),
    },
    providerKey: rememberProviderKeys(config, env),
    now,
    logError,
    logEvent,
  };
}

/**
 * Each provider's upstream key, read from the environment once: `process.env` is an interceptor
 * that calls getenv, ~3 µs a read on every upstream call in `perf`. Keys do not change while the
 * process runs; a provider the configuration does not name has none.
 */
function rememberProviderKeys(
  config: Config,
  env: NodeJS.ProcessEnv,
): (providerId: string) => string | undefined {
  const keys = new Map<string, string | undefined>();
  return (providerId) => {
    if (keys.has(providerId)) return keys.get(providerId);
    const key = readProviderKey(config.providers[providerId]?.apiKeyEnv, env);
    if (Object.hasOwn(config.providers, providerId)) keys.set(providerId, key);
    return key;
  };
}
