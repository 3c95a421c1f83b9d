import type { IdempotentOperation } from '../../idempotency/idempotency-service.ts';
import type { IdempotencyService } from '../../idempotency/idempotency-service.ts';
import { readProviderKey } from '../../config/load-config.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import type { GatewayParts } from '../gateway-parts.ts';
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

export function composeSearch(
  parts: GatewayParts,
  idempotency: IdempotencyService,
): GatewayFeature {
  const config = parts.config.search;
  // Without providers there is nothing to ask, so the route does not exist (docs/search.md).
  if (config === undefined) return { routes: [] };
  const search = new SearchService({
    config,
    pools: parts.pools,
    ledger: parts.billing.ledger,
    settlements: parts.billing.settlements,
    holdTtlMs: parts.billing.holdTtlMs,
    rateLimiter: parts.billing.rateLimiter,
    limits: parts.billing.limits,
    apiKey: (provider) => readProviderKey(provider.apiKeyEnv, parts.env),
    now: parts.now,
  });
  return {
    routes: [
      (app) =>
        searchRoutes(app, {
          authenticator: parts.authenticator,
          search,
          idempotency,
          operation: searchOperation,
        }),
    ],
  };
}
