import type { IdempotentOperation } from '../../idempotency/idempotency-service.ts';
import type { IdempotencyService } from '../../idempotency/idempotency-service.ts';
import { readProviderKey } from '../../config/load-config.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import type { GatewayParts } from '../gateway-parts.ts';
import type { SearchRunner } from './run-search.ts';
import { searchRoutes } from './search-routes.ts';
import { SearchService } from './search-service.ts';

/**
 * Search's idempotency (docs/decisions/0060): an answer is replayed for 15 minutes under its
 * x-request-id, like evaluation's. A claim holds 2 minutes, past the longest try of every
 * provider in turn at the default timeouts.
 */
export const searchOperation: IdempotentOperation = {
  name: 'search',
  windowMs: 15 * 60_000,
  claimMs: 2 * 60_000,
  keyHeader: 'x-request-id',
};

export interface ComposedSearch {
  /** What runs a search; undefined when search is not configured. */
  runner: SearchRunner | undefined;
  feature: GatewayFeature;
}

export function composeSearch(
  parts: GatewayParts,
  idempotency: IdempotencyService,
): ComposedSearch {
  const config = parts.config.search;
  // Without providers there is nothing to ask, so the route does not exist (docs/search.md).
  if (config === undefined) return { runner: undefined, feature: { routes: [] } };
  const search = new SearchService({
    config,
    pools: parts.pools,
    ledger: parts.billing.ledger,
    settlements: parts.billing.settlements,
    holdTtlMs: parts.billing.holdTtlMs,
    ...(parts.billing.budgets !== undefined ? { budgets: parts.billing.budgets } : {}),
    rateLimiter: parts.billing.rateLimiter,
    limits: parts.billing.limits,
    apiKey: (provider) => readProviderKey(provider.apiKeyEnv, parts.env),
    now: parts.now,
  });
  const runner: SearchRunner = { search, idempotency, operation: searchOperation };
  return {
    runner,
    feature: {
      routes: [(app) => searchRoutes(app, { authenticator: parts.authenticator, runner })],
    },
  };
}
