import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ModelCatalog } from './catalog/model-catalog.ts';
import {
  composeCompaction,
  composeCompactionRoutes,
  loadCompactionSeal,
} from './composition/compose-compaction.ts';
import { composeConnectedRoutes } from './composition/compose-connected-routes.ts';
import { composeDashboard } from './composition/compose-dashboard.ts';
import { composeDashboardPages } from './composition/compose-dashboard-pages.ts';
import { composeGatewayParts } from './composition/compose-gateway-parts.ts';
import { composeGeneration } from './composition/compose-generation.ts';
import { composeHoldExpiry } from './composition/compose-hold-expiry.ts';
import { composeIdempotency } from './composition/compose-idempotency.ts';
import { composeInstallers } from './composition/compose-installers.ts';
import { composeRateLimiter } from './composition/compose-rate-limiter.ts';
import { composeRoutingState } from './composition/compose-routing-state.ts';
import {
  composeResponsesSockets,
  composeResponsesState,
} from './composition/compose-responses-state.ts';
import { composeSettlements } from './composition/compose-settlements.ts';
import { openStore, type StartupWarn } from './composition/open-store.ts';
import { ProviderKeys } from './composition/provider-keys.ts';
import { reloadConfiguration, type ReloadOutcome } from './composition/reload-configuration.ts';
import { warnUnsetProviderKeys } from './composition/warn-unset-provider-keys.ts';
import type { Config } from './config/config-schema.ts';
import { loadConfig, readAdminToken } from './config/load-config.ts';
import { readTelemetryConfig } from './config/read-telemetry-config.ts';
import { composeEvaluation } from './features/evaluation/compose-evaluation.ts';
import type { GatewayFeature } from './features/gateway-feature.ts';
import { composeMcp } from './features/mcp/compose-mcp.ts';
import { composeImages } from './features/images/compose-images.ts';
import type { ImageService } from './features/images/image-service.ts';
import { composeSearch } from './features/search/compose-search.ts';
import { composeTranscription } from './features/transcription/compose-transcription.ts';
import type { BlobStore } from './features/storage/blob-store.ts';
import { composeStorage } from './features/storage/compose-storage.ts';
import type { StorageService } from './features/storage/storage-service.ts';
import { dashboardBaseUrl } from './dashboard/dashboard-base-url.ts';
import { buildApp } from './http/build-app.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import { OperatorService } from './operator/operator-service.ts';
import { createRoutingMetrics } from './routing/create-routing-metrics.ts';
import type { Router } from './routing/router.ts';
import type { Store } from './store/store.ts';
import { messagesSurface } from './surfaces/messages/messages-surface.ts';

export { openStore, type ReloadOutcome, type StartupWarn };

export interface Gateway {
  app: FastifyInstance;
  store: Store;
  catalog: ModelCatalog;
  /** Chooses upstream targets and holds their health (docs/routing.md). */
  router: Router;
  operator: OperatorService;
  /** Stored files (docs/decisions/0050): what features call to store, protect and read files. */
  storage: StorageService;
  /**
   * Image generation (docs/images.md), for the MCP tools; undefined when no image models are
   * configured.
   */
  images: ImageService | undefined;
  /**
   * Reads the configuration file again and swaps its reloadable parts (docs/operations.md,
   * "Reloading the configuration"); an invalid file changes nothing. Logs one line either way,
   * naming what asked for it (`via`). A call while a reload runs joins it.
   */
  reload(options?: { via?: string }): Promise<ReloadOutcome>;
  /** Stops background work and closes the app and the stores. */
  close(): Promise<void>;
}

export interface ComposeOptions {
  /** Told when start-up waits for an unreachable store (docs/decisions/0021). */
  warn?: StartupWarn;
  env?: NodeJS.ProcessEnv;
  logger?: FastifyServerOptions['logger'];
  processMetrics?: boolean;
  /** An already opened store (tests); otherwise opened from the configuration. */
  store?: Store;
  /** The clock (epoch milliseconds); tests move it to cross time windows. */
  now?: () => number;
  /** A BlobStore for stored files (tests); otherwise the configured one. */
  blobs?: BlobStore;
  /**
   * How a reload reads the configuration; by default `loadConfig(env)`, the file start-up reads
   * (`SWITCHYARD_CONFIG` or ./switchyard.config.json) with the same environment overrides.
   */
  readConfig?: () => Config;
  /** The dashboard's built pages (tests); otherwise dashboard/ beside the built main.js. */
  dashboardDirectory?: string;
}

/**
 * The composition root: the only place that chooses concrete adapters (docs/architecture.md). It
 * reads as a list: the stores, the shared parts, the services, then one `GatewayFeature` per group
 * of routes and background work. A feature folder adds one line to `features`.
 */
export async function composeGateway(
  config: Config,
  options: ComposeOptions = {},
): Promise<Gateway> {
  const env = options.env ?? process.env;
  const adminToken = readAdminToken(config, env);
  if (adminToken?.startsWith('sy_')) {
    // The admin credential is never a client token.
    throw new Error(
      `${config.admin.tokenEnv} looks like a client token (sy_…); choose a separate secret.`,
    );
  }
  // Read before anything is opened: a bad variable stops start-up with nothing to close.
  const telemetryConfig = readTelemetryConfig(env);
  const compactionSeal = await loadCompactionSeal(config, env);
  const warn = options.warn ?? (() => {});
  warnUnsetProviderKeys(config, env, warn);
  const store = options.store ?? (await openStore(config, { warn }));
  // Background work logs only after the app below is built.
  const logError = (error: unknown, message: string, fields: Record<string, unknown> = {}) =>
    app.log.error({ err: error, ...fields }, message);
  const logEvent = (level: 'warn' | 'info', message: string, fields: Record<string, unknown>) =>
    app.log[level](fields, message);
  let limiter;
  try {
    limiter = await composeRateLimiter(config, {
      warn,
      logWarning: (error, message) => app.log.warn({ err: error }, message),
    });
  } catch (error) {
    // The store is ours to close, and the embedded one holds the file's lease.
    if (options.store === undefined) await store.close();
    throw error;
  }
  // Its connections may drop before the app (and its logger) is built.
  let appBuilt: (built: FastifyInstance) => void = () => {};
  const appLog = new Promise<FastifyInstance>((resolve) => (appBuilt = resolve));
  const routingState = await composeRoutingState(config, {
    now: options.now ?? (() => Date.now()),
    logWarning: (error, message) =>
      void appLog.then((built) => built.log.warn({ err: error }, message)),
    logInfo: (message) => void appLog.then((built) => built.log.info(message)),
  });
  const providerKeys = new ProviderKeys(config, env);
  const metrics = createHttpMetrics({ processMetrics: options.processMetrics ?? false });
  const { outbox: settlements, close: closeSettlementSpool } = await composeSettlements({
    config,
    ledger: store.ledger,
    metrics,
    ownsStore: options.store === undefined,
    logError,
  });
  const parts = composeGatewayParts({
    config,
    env,
    store,
    rateLimiter: limiter.rateLimiter,
    settlements,
    logError,
    logEvent,
    providerKeys,
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(routingState !== undefined ? { routingState } : {}),
  });
  createRoutingMetrics(metrics.registry, {
    models: () => parts.catalog.all(),
    router: parts.router,
  });
  // Undefined unless an OTLP endpoint is configured (docs/operations.md, "Traces"). The
  // OpenTelemetry SDK is only loaded then: off, it costs neither memory nor start-up time.
  const telemetry =
    telemetryConfig === undefined
      ? undefined
      : (await import('./composition/compose-telemetry.ts')).composeTelemetry(telemetryConfig, {
          logError,
          logWarn: (fields, message) => logEvent('warn', message, fields),
        });
  const compaction = composeCompaction(parts, compactionSeal);
  const responsesState = composeResponsesState(parts, store.responses);
  const { generation, feature: generationRoutes } = composeGeneration(parts, {
    compaction,
    responsesState,
    metrics,
    otel: telemetry?.observer,
  });

  const { idempotency, feature: idempotencySweep } = composeIdempotency(
    parts,
    store.idempotency,
    metrics,
  );

  const storage = await composeStorage({
    config: config.storage,
    dataDir: config.dataDir,
    env,
    assets: store.assets,
    authenticator: parts.authenticator,
    now: parts.now,
    onSweepError: (error) => parts.logError(error, 'sweeping stored files failed'),
    metrics: metrics.registry,
    ...(options.blobs === undefined ? {} : { blobs: options.blobs }),
  });

  const search = composeSearch(parts, idempotency);
  const images = composeImages(parts, {
    idempotency,
    storage: storage.service,
    jobs: store.imageJobs,
    metrics: metrics.registry,
  });

  const operator = new OperatorService(store, Date.now, {
    dashboardBaseUrl: dashboardBaseUrl(config),
  });

  const features: GatewayFeature[] = [
    generationRoutes,
    composeCompactionRoutes(parts, compaction, generation, responsesState),
    composeInstallers(parts),
    composeResponsesSockets(parts, {
      responsesState,
      generation,
      store: store.responses,
      metrics,
    }),
    composeConnectedRoutes(parts),
    composeHoldExpiry(parts, store.ledger, settlements),
    idempotencySweep,
    composeEvaluation({
      config: config.evaluation,
      catalog: parts.catalog,
      authenticator: parts.authenticator,
      generation,
      messagesSurface,
      ledger: store.ledger,
      idempotency,
      now: parts.now,
    }),
    search.feature,
    composeTranscription(parts, idempotency),
    composeMcp(parts, {
      search: search.runner,
      images: images.service,
      imageSources: images.sources,
    }),
    // Before storage: stopping jobs may still write files.
    images,
    storage,
    composeDashboard(parts, {
      store,
      operator,
      storage: storage.service,
      metrics: metrics.registry,
    }),
    composeDashboardPages(options.dashboardDirectory),
  ];

  const readConfig = options.readConfig ?? (() => loadConfig(env).config);
  let reloading: Promise<ReloadOutcome> | undefined;
  const reload = (reloadOptions: { via?: string } = {}): Promise<ReloadOutcome> => {
    reloading ??= Promise.resolve()
      .then(() => {
        const outcome = reloadConfiguration({ parts, providerKeys, readConfig });
        logReload(app, outcome, reloadOptions.via);
        return outcome;
      })
      .finally(() => {
        reloading = undefined;
      });
    return reloading;
  };

  const app = await buildApp(
    {
      catalog: parts.catalog,
      authenticator: parts.authenticator,
      operator,
      adminToken,
      reloadConfiguration: () => reload({ via: 'admin API' }),
      router: parts.router,
      ...(parts.billing.budgets !== undefined ? { budgets: parts.billing.budgets } : {}),
      checkReady: async () => {
        await store.ping();
        await limiter.ping();
      },
      metrics,
      routes: features.flatMap((feature) => feature.routes),
    },
    {
      bodyLimitBytes: config.server.bodyLimitBytes,
      requestReceiveTimeoutMs: config.server.requestReceiveTimeoutMs,
      bodiesInFlightLimitBytes: config.server.bodiesInFlightLimitBytes,
      logger: options.logger ?? false,
      processMetrics: options.processMetrics ?? false,
    },
  );
  appBuilt(app);
  // docs/decisions/0017: settlements a previous run could not write land before new traffic
  // settles.
  await settlements.replay();
  for (const feature of features) feature.start?.();

  return {
    app,
    store,
    catalog: parts.catalog,
    router: parts.router,
    operator,
    storage: storage.service,
    images: images.service,
    reload,
    async close() {
      for (const feature of features) await feature.stop?.();
      await app.close();
      // Calls cut by the end of the shutdown grace settle what they delivered before the store
      // closes (docs/decisions/0099).
      await parts.billing.open?.allEnded();
      // Every call has been observed; the spans still buffered leave now.
      await telemetry?.shutdown();
      await limiter.close();
      await parts.router.state.close();
      // A last try for settlements still waiting; those that fail again stay in the spool.
      await settlements.flush();
      settlements.close();
      await closeSettlementSpool();
      await parts.pools.close();
      if (options.store === undefined) await store.close();
    },
  };
}

/** One line per reload: what changed, or why the file was refused and the old one kept. */
function logReload(app: FastifyInstance, outcome: ReloadOutcome, via: string | undefined): void {
  const trigger = via === undefined ? {} : { via };
  if (!outcome.ok) {
    app.log.error(
      { ...trigger, reason: outcome.reason },
      'configuration reload refused; the running configuration stays',
    );
    return;
  }
  const { changed, restartNeeded, unsetKeys } = outcome;
  app.log[restartNeeded.length > 0 ? 'warn' : 'info'](
    {
      ...trigger,
      models: changed.models,
      providers: changed.providers,
      sections: changed.sections,
      ...(restartNeeded.length > 0 ? { restartNeeded } : {}),
    },
    restartNeeded.length > 0
      ? `configuration reloaded; these changes need a restart and were not applied: ${restartNeeded.join(', ')}`
      : 'configuration reloaded',
  );
  for (const { provider, apiKeyEnv } of unsetKeys) {
    app.log.warn(
      { provider, apiKeyEnv },
      `provider "${provider}": the environment variable ${apiKeyEnv} is unset or empty, so its calls are sent without a credential; set it and restart`,
    );
  }
}
