import { createCompactionSeal, type CompactionSeal } from '../compaction/compaction-seal.ts';
import type { Config } from '../config/config-schema.ts';
import { CompactionService } from '../compaction/compaction-service.ts';
import { loadCompactionSealSecret } from '../compaction/load-compaction-seal-secret.ts';
import { ConfigError, readSealKeySecret } from '../config/load-config.ts';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { ResponsesState } from '../responses-state/responses-state.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { GenerationService } from '../generation/generation-service.ts';
import { compactionRoutes } from '../http/routes/compaction-routes.ts';
import { responsesSurface } from '../surfaces/responses/responses-surface.ts';

/**
 * The key that seals compaction items (docs/decisions/0013). Read before any store is opened, so
 * a misconfigured shared deployment fails at start-up with that message alone.
 */
export async function loadCompactionSeal(
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<CompactionSeal> {
  let sealSecret;
  try {
    sealSecret = await loadCompactionSealSecret({
      secret: readSealKeySecret(config, env),
      secretEnv: config.compaction.sealKeyEnv,
      dataDir: config.dataDir,
      sharedStore: config.store.backend === 'postgres',
    });
  } catch (error) {
    // A key that is missing or too short is the configuration's (its message names the fix);
    // a file the system cannot read keeps its own error.
    if (error instanceof Error && (error as NodeJS.ErrnoException).code === undefined)
      throw new ConfigError(error.message);
    throw error;
  }
  return createCompactionSeal(sealSecret);
}

/**
 * The compaction service is built before generation, which compacts through it; its route needs
 * generation, so that feature is composed afterwards.
 */
export function composeCompaction(parts: GatewayParts, seal: CompactionSeal): CompactionService {
  return new CompactionService({
    catalog: parts.catalog,
    pools: parts.pools,
    billing: parts.billing,
    providerKey: parts.providerKey,
    now: parts.now,
    seal,
  });
}

/** `POST /v1/responses/compact`. */
export function composeCompactionRoutes(
  parts: GatewayParts,
  compaction: CompactionService,
  generation: GenerationService,
  responsesState: ResponsesState,
): GatewayFeature {
  return {
    routes: [
      (app) =>
        compactionRoutes(app, {
          authenticator: parts.authenticator,
          compaction,
          generation,
          responsesSurface,
          responsesState,
        }),
    ],
  };
}
