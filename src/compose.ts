import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Authenticator } from './auth/authenticator.ts';
import { ModelCatalog } from './catalog/model-catalog.ts';
import type { Config } from './config/config-schema.ts';
import { readAdminToken } from './config/load-config.ts';
import { buildApp } from './http/build-app.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import { createSettlementMetrics } from './billing/create-settlement-metrics.ts';
import { SettlementOutbox } from './billing/settlement-outbox.ts';
import { OperatorService } from './operator/operator-service.ts';
import { openSqliteStore } from './store/sqlite/open-sqlite-store.ts';
import type { Store } from './store/store.ts';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { readProviderKey, readSealKeySecret } from './config/load-config.ts';
import { CompactionService } from './compaction/compaction-service.ts';
import { createCompactionSeal } from './compaction/compaction-seal.ts';
import { loadCompactionSealSecret } from './compaction/load-compaction-seal-secret.ts';
import { CountTokensService } from './generation/count-tokens-service.ts';
import { dialectPassthroughAdapters } from './generation/dialect-passthrough-adapters.ts';
import { GenerationService } from './generation/generation-service.ts';
import { PromptTokenizers } from './generation/prompt-tokenizers.ts';
import { compactionRoutes } from './http/routes/compaction-routes.ts';
import { generationRoutes } from './http/routes/generation-routes.ts';
import { connectedRoutes } from './http/routes/connected-routes.ts';
import { installRoutes } from './http/routes/install-routes.ts';
import { responsesWebSocketRoutes } from './http/routes/responses-websocket-routes.ts';
import { ResponsesState } from './responses-state/responses-state.ts';
import { startResponseRetentionSweep } from './responses-state/sweep-expired-responses.ts';
import { resolveConnectedTargets } from './connected/resolve-connected-targets.ts';
import { MemoryRateLimiter } from './limits/memory-rate-limiter.ts';
import type { RateLimiter } from './limits/rate-limiter.ts';
import { anthropicProvider } from './providers/anthropic/anthropic-provider.ts';
import { convertToOpenAIChatTokenizeRequest } from './providers/openai-chat/convert-to-openai-chat-tokenize-request.ts';
import { anthropicCountTokensPath } from './providers/anthropic/convert-to-anthropic-count-tokens-request.ts';
import { openAIChatProvider } from './providers/openai-chat/openai-chat-provider.ts';
import {
  convertToOpenAIInputTokensRequest,
  openAIResponsesInputTokensPath,
} from './providers/openai-responses/convert-to-openai-input-tokens-request.ts';
import { openAIResponsesProvider } from './providers/openai-responses/openai-responses-provider.ts';
import { UpstreamPools } from './providers/shared/upstream-pool.ts';
import { waitForDependency } from './store/wait-for-dependency.ts';
import { chatSurface } from './surfaces/chat/chat-surface.ts';
import { messagesSurface } from './surfaces/messages/messages-surface.ts';
import { responsesSurface } from './surfaces/responses/responses-surface.ts';
import { chatRequestSchema } from './wire/chat/chat-request-schema.ts';
import { chatResponseSchema } from './wire/chat/chat-response-schema.ts';
import {
  countTokensRequestSchema,
  messagesRequestSchema,
} from './wire/messages/messages-request-schema.ts';
import {
  countTokensResponseSchema,
  messageResponseSchema,
} from './wire/messages/messages-response-schema.ts';
import { responseObjectSchema } from './wire/responses/responses-object-schema.ts';
import { responsesRequestSchema } from './wire/responses/responses-request-schema.ts';

/**
 * The composition root: the only place that chooses concrete adapters (DESIGN.md §5). The gateway
 * owns an embedded store (decision 0014); the operator CLI opens it beside the gateway with
 * `owner: false`, going through the durable ledger.
 */
export async function openStore(
  config: Config,
  options: { owner?: boolean; warn?: StartupWarn } = {},
): Promise<Store> {
  if (config.store.backend === 'postgres') {
    // Loaded only when configured: the PostgreSQL and Redis clients cost the embedded default
    // tens of megabytes of resident memory it never uses (docs/performance.md).
    const { openPostgresStore } = await import('./store/postgres/open-postgres-store.ts');
    const connectionString = config.store.postgresUrl as string;
    return waitForDependency({
      dependency: 'PostgreSQL',
      url: connectionString,
      waitMs: config.store.connectWaitSeconds * 1000,
      connect: () => openPostgresStore({ connectionString }),
      warn: options.warn ?? (() => {}),
    });
  }
  return openSqliteStore({
    path: path.join(config.dataDir, 'switchyard.sqlite'),
    owner: options.owner ?? true,
  });
}

export interface Gateway {
  app: FastifyInstance;
  store: Store;
  catalog: ModelCatalog;
  operator: OperatorService;
  /** Stops background work and closes the app and the stores. */
  close(): Promise<void>;
}

/** Start-up messages written before the app and its logger exist. */
export type StartupWarn = (message: string, fields: Record<string, unknown>) => void;

export interface ComposeOptions {
  /** Told when start-up waits for an unreachable store (issue 13 §4). */
  warn?: StartupWarn;
  env?: NodeJS.ProcessEnv;
  logger?: FastifyServerOptions['logger'];
  processMetrics?: boolean;
  /** An already opened store (tests); otherwise opened from the configuration. */
  store?: Store;
}

export async function composeGateway(
  config: Config,
  options: ComposeOptions = {},
): Promise<Gateway> {
  const env = options.env ?? process.env;
  const adminToken = readAdminToken(config, env);
  if (adminToken?.startsWith('sy_')) {
    // issue 2 §4: the admin credential is never a client token.
    throw new Error(
      `${config.admin.tokenEnv} looks like a client token (sy_…); choose a separate secret.`,
    );
  }
  const sealSecret = await loadCompactionSealSecret({
    secret: readSealKeySecret(config, env),
    secretEnv: config.compaction.sealKeyEnv,
    dataDir: config.dataDir,
    sharedStore: config.store.backend === 'postgres',
  });
  const store = options.store ?? (await openStore(config, { warn: options.warn }));
  const catalog = new ModelCatalog(config);
  const authenticator = new Authenticator(store.apiKeys, store.accounts);
  const operator = new OperatorService(store);
  const pools = new UpstreamPools();
  let redis: Redis | undefined;
  let rateLimiter: RateLimiter = new MemoryRateLimiter();
  // issue 13 §4: Redis holds only the shared rate limits, so without limits it is not used, and
  // neither readiness nor start-up depends on it.
  const limited = config.limits.token !== undefined || config.limits.account !== undefined;
  if (config.store.redisUrl !== undefined && limited) {
    const { RedisRateLimiter } = await import('./store/redis/redis-rate-limiter.ts');
    const { connectRedis } = await import('./store/redis/connect-redis.ts');
    try {
      redis = await connectRedis(config.store.redisUrl, {
        waitMs: config.store.connectWaitSeconds * 1000,
        warn: options.warn ?? (() => {}),
      });
    } catch (error) {
      // The store is ours to close, and the embedded one holds the file's lease.
      if (options.store === undefined) await store.close();
      throw error;
    }
    rateLimiter = new RedisRateLimiter(redis, 'switchyard:limits', {
      onHeartbeatError: (error) =>
        app.log.warn({ err: error }, 'renewing rate-limit leases failed; retrying'),
    });
  }
  const providerKey = (providerId: string) =>
    readProviderKey(config.providers[providerId]?.apiKeyEnv, env);
  const now = () => Date.now();
  const metrics = createHttpMetrics({ processMetrics: options.processMetrics ?? false });
  const settlementMetrics = createSettlementMetrics(metrics.registry);
  const settlements = new SettlementOutbox({
    ledger: store.ledger,
    // Only a store this gateway opened has a data folder of its own to keep settlements in.
    directory: options.store === undefined ? path.join(config.dataDir, 'settlements') : undefined,
    retryMs: 5_000,
    onSettled: (settlement, result) => settlementMetrics.observe(settlement, result),
    onWaiting: (count) => settlementMetrics.setWaiting(count),
    onUnreadable: (error, file) =>
      app.log.error({ err: error, file }, 'a kept settlement file cannot be read; left in place'),
    onFailure: (error, settlement) =>
      // `app` exists by the time any request settles.
      app.log.error(
        { err: error, requestId: settlement.requestId },
        'writing a settlement failed; it is kept and retried',
      ),
  });
  const billing = {
    ledger: store.ledger,
    usage: store.usage,
    settlements,
    rateLimiter,
    limits: config.limits,
    holdTtlMs: config.billing.holdTtlSeconds * 1000,
    now,
  };
  const compaction = new CompactionService({
    catalog,
    pools,
    billing,
    providerKey,
    now,
    seal: createCompactionSeal(sealSecret),
  });
  const responsesState = new ResponsesState({
    store: store.responses,
    retentionMs: config.responses.retentionDays * 86_400_000,
    storeByDefault: config.responses.storeByDefault,
    now,
    onSaveFailure: (error, responseId) =>
      app.log.error({ err: error, responseId }, 'storing a finished response failed'),
  });
  const promptTokenizers = new PromptTokenizers();
  const countTokens = new CountTokensService({
    catalog,
    pools,
    messagesSurface,
    anthropicPassthrough: dialectPassthroughAdapters.messages,
    encodeOpenAIInputTokens: (call, upstreamModel) =>
      convertToOpenAIInputTokensRequest(call, { upstreamModel }),
    encodeOpenAIChatTokenize: (call, upstreamModel) =>
      convertToOpenAIChatTokenizeRequest(call, { upstreamModel }),
    tokenizers: promptTokenizers,
    anthropicCountPath: anthropicCountTokensPath,
    openAIInputTokensPath: openAIResponsesInputTokensPath,
    providerKey,
    now,
  });
  const generation = new GenerationService({
    catalog,
    pools,
    billing,
    providers: {
      anthropic: anthropicProvider,
      'openai-chat': openAIChatProvider,
      'openai-responses': openAIResponsesProvider,
    },
    passthrough: dialectPassthroughAdapters,
    providerKey,
    now,
    compaction,
    turnHooks: { responses: responsesState.turnHook },
    promptCounter: countTokens,
    promptTokenizers,
  });
  const checkReady = async () => {
    await store.ping();
    if (redis !== undefined) await redis.ping();
  };

  const app = await buildApp(
    {
      catalog,
      authenticator,
      operator,
      adminToken,
      checkReady,
      metrics,
      routes: [
        (instance) =>
          generationRoutes(instance, {
            authenticator,
            generation,
            countTokens,
            surfaces: { messages: messagesSurface, responses: responsesSurface, chat: chatSurface },
            schemas: {
              messagesRequest: messagesRequestSchema,
              messageResponse: messageResponseSchema,
              countTokensRequest: countTokensRequestSchema,
              countTokensResponse: countTokensResponseSchema,
              responsesRequest: responsesRequestSchema,
              responseObject: responseObjectSchema,
              chatRequest: chatRequestSchema,
              chatResponse: chatResponseSchema,
            },
          }),
        (instance) =>
          compactionRoutes(instance, { authenticator, compaction, generation, responsesSurface }),
        (instance) => installRoutes(instance, { publicBaseUrl: config.server.publicBaseUrl }),
        (instance) =>
          responsesWebSocketRoutes(instance, {
            authenticator,
            generation,
            responsesState,
            surface: responsesSurface,
            requestSchema: responsesRequestSchema,
            maxFrameBytes: config.server.bodyLimitBytes,
          }),
        (instance) =>
          connectedRoutes(instance, {
            authenticator,
            ...resolveConnectedTargets(config.connected, env),
          }),
      ],
    },
    {
      bodyLimitBytes: config.server.bodyLimitBytes,
      requestReceiveTimeoutMs: config.server.requestReceiveTimeoutMs,
      bodiesInFlightLimitBytes: config.server.bodiesInFlightLimitBytes,
      logger: options.logger ?? false,
      processMetrics: options.processMetrics ?? false,
    },
  );

  // Issue 12 §3: settlements a previous run could not write land before new traffic settles.
  await settlements.replay();
  // DESIGN.md §2: holds that outlive a crash or a lost settle expire and are released; the
  // settlements still waiting for the store are tried again on the same beat.
  const sweeper = setInterval(() => {
    store.ledger.releaseExpiredHolds(Date.now()).catch((error: unknown) => {
      app.log.error({ err: error }, 'releasing expired holds failed');
    });
    void settlements.flush();
  }, 60_000);
  sweeper.unref();
  const responseSweep = startResponseRetentionSweep({
    store: store.responses,
    intervalMs: 5 * 60_000,
    now,
    onError: (error) => app.log.error({ err: error }, 'deleting expired responses failed'),
  });

  return {
    app,
    store,
    catalog,
    operator,
    async close() {
      clearInterval(sweeper);
      responseSweep.stop();
      await app.close();
      rateLimiter.close();
      // A last try for settlements still waiting; those that fail again stay on disk.
      await settlements.flush();
      settlements.close();
      await pools.close();
      if (redis !== undefined) await redis.quit();
      if (options.store === undefined) await store.close();
    },
  };
}
