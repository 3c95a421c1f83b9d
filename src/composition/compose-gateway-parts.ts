import { Authenticator } from '../auth/authenticator.ts';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import { TokenBudgets } from '../billing/token-budgets.ts';
import type { Config } from '../config/config-schema.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { OpenSessions } from '../generation/open-sessions.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { UpstreamPools } from '../providers/shared/upstream-pool.ts';
import { MemoryRoutingState } from '../routing/memory-routing-state.ts';
import type { RoutingState } from '../routing/routing-state.ts';
import { Router } from '../routing/router.ts';
import type { Store } from '../store/store.ts';
import type { ProviderKeys } from './provider-keys.ts';

/** The parts every feature shares: catalog, authentication, upstream pools and billing. */
export function composeGatewayParts(options: {
  config: Config;
  env: NodeJS.ProcessEnv;
  store: Store;
  rateLimiter: RateLimiter;
  settlements: SettlementOutbox;
  logError: GatewayParts['logError'];
  logEvent: GatewayParts['logEvent'];
  /** The provider keys, kept by the composition root so a configuration reload can replace them. */
  providerKeys: ProviderKeys;
  /** The clock (epoch milliseconds); tests move it to cross time windows. */
  now?: () => number;
  /** Shared routing state (Redis); otherwise this process's own. */
  routingState?: RoutingState;
}): GatewayParts {
  const { config, env, store, rateLimiter, settlements, logError, logEvent } = options;
  const now = options.now ?? (() => Date.now());
  const budgets = new TokenBudgets({
    spentByToken: (apiKeyId, since) => store.usage.spentByToken(apiKeyId, since),
    now,
  });
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
      budgets,
    },
    providerKey: options.providerKeys.get,
    now,
    logError,
    logEvent,
  };
}
