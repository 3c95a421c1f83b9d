import { Authenticator } from '../auth/authenticator.ts';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { Config } from '../config/config-schema.ts';
import { readUpstreamKeys } from '../catalog/upstream-key.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { OpenSessions } from '../generation/open-sessions.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { UpstreamPools } from '../providers/shared/upstream-pool.ts';
import { MemoryRoutingState } from '../routing/memory-routing-state.ts';
import type { RoutingState } from '../routing/routing-state.ts';
import { Router } from '../routing/router.ts';
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
  /** Shared routing state (Redis); otherwise this process's own. */
  routingState?: RoutingState;
}): GatewayParts {
  const { config, env, store, rateLimiter, settlements, logError, logEvent } = options;
  const now = options.now ?? (() => Date.now());
  return {
    config,
    env,
    catalog: new ModelCatalog(config, env),
    authenticator: new Authenticator(store.apiKeys, store.accounts),
    pools: new UpstreamPools(),
    router: new Router(
      options.routingState ??
        new MemoryRoutingState({ maxPins: config.routing.affinityMaxEntries, now }),
      config.routing,
      now,
    ),
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
 * Each provider's first upstream key (count_tokens, compaction and transcription call one key;
 * generation routes over all of them), read from the environment once: `process.env` is an interceptor
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
    const provider = config.providers[providerId];
    const key =
      provider === undefined ? undefined : readUpstreamKeys(provider.apiKeyEnv, env)[0]?.secret;
    if (Object.hasOwn(config.providers, providerId)) keys.set(providerId, key);
    return key;
  };
}
