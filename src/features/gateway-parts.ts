import type { Authenticator } from '../auth/authenticator.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Config } from '../config/config-schema.ts';
import type { BillingDependencies } from '../generation/billing-session.ts';
import type { UpstreamPools } from '../providers/shared/upstream-pool.ts';
import type { Router } from '../routing/router.ts';

/**
 * The shared parts a feature's `compose-<name>.ts` builds its service from (docs/architecture.md):
 * one catalog, one set of upstream pools, one billing path, so every feature meters and limits the
 * same way. Concrete stores are not here: the composition root hands a feature the ports it needs.
 */
export interface GatewayParts {
  /**
   * The configuration in effect. A reload replaces it with one whose reloadable sections (models,
   * providers, routing) are new and the rest as started, so a part that should follow reloads reads
   * it at call time; what a feature takes from it at compose time stays until a restart.
   */
  config: Config;
  env: NodeJS.ProcessEnv;
  /** Swapped in place by a reload (`ModelCatalog.replaceWith`). */
  catalog: ModelCatalog;
  authenticator: Authenticator;
  pools: UpstreamPools;
  /** Chooses the target of every text upstream call and learns their health (docs/routing.md). */
  router: Router;
  billing: BillingDependencies;
  /**
   * The configured credential of a provider, read from its environment variable; it follows a
   * reload, so keep the function, not a key read from it.
   */
  providerKey(providerId: string): string | undefined;
  now(): number;
  /** Logs a failure of background work on the app's logger (available once the app is built). */
  logError(error: unknown, message: string, fields?: Record<string, unknown>): void;
  /**
   * Logs what background work met that is no bug, one line without a stack: an upstream's
   * failure at warn, or at info when the upstream refused the client's request
   * (docs/decisions/0111).
   */
  logEvent(level: 'warn' | 'info', message: string, fields: Record<string, unknown>): void;
}
