import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Authenticator } from './auth/authenticator.ts';
import { ModelCatalog } from './catalog/model-catalog.ts';
import type { Config } from './config/config-schema.ts';
import { readAdminToken } from './config/load-config.ts';
import { buildApp } from './http/build-app.ts';
import { OperatorService } from './operator/operator-service.ts';
import { openPostgresStore } from './store/postgres/open-postgres-store.ts';
import { openSqliteStore } from './store/sqlite/open-sqlite-store.ts';
import type { Store } from './store/store.ts';
import path from 'node:path';

/** The composition root: the only place that chooses concrete adapters (DESIGN.md §5). */
export async function openStore(config: Config): Promise<Store> {
  if (config.store.backend === 'postgres') {
    return openPostgresStore({ connectionString: config.store.postgresUrl as string });
  }
  return openSqliteStore({ path: path.join(config.dataDir, 'switchyard.sqlite') });
}

export interface Gateway {
  app: FastifyInstance;
  store: Store;
  catalog: ModelCatalog;
  operator: OperatorService;
  /** Stops background work and closes the app and the stores. */
  close(): Promise<void>;
}

export interface ComposeOptions {
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
  const store = options.store ?? (await openStore(config));
  const catalog = new ModelCatalog(config);
  const authenticator = new Authenticator(store.apiKeys, store.accounts);
  const operator = new OperatorService(store);

  const app = await buildApp(
    { catalog, authenticator, operator, adminToken, checkReady: () => store.ping() },
    {
      bodyLimitBytes: config.server.bodyLimitBytes,
      logger: options.logger ?? false,
      processMetrics: options.processMetrics ?? false,
    },
  );

  // DESIGN.md §2: holds that outlive a crash or a lost settle expire and are released.
  const sweeper = setInterval(() => {
    store.ledger.releaseExpiredHolds(Date.now()).catch((error: unknown) => {
      app.log.error({ err: error }, 'releasing expired holds failed');
    });
  }, 60_000);
  sweeper.unref();

  return {
    app,
    store,
    catalog,
    operator,
    async close() {
      clearInterval(sweeper);
      await app.close();
      if (options.store === undefined) await store.close();
    },
  };
}
