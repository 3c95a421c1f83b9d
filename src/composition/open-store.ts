import path from 'node:path';
import type { Config } from '../config/config-schema.ts';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { waitForDependency } from '../store/wait-for-dependency.ts';

/** Start-up messages written before the app and its logger exist. */
export type StartupWarn = (message: string, fields: Record<string, unknown>) => void;

/**
 * The configured store adapter (docs/architecture.md: only the composition root chooses one). The
 * gateway owns an embedded store (decision 0014); the operator CLI opens it beside the gateway with
 * `owner: false`, going through the durable ledger.
 */
export async function openStore(
  config: Config,
  options: { owner?: boolean; warn?: StartupWarn } = {},
): Promise<Store> {
  if (config.store.backend === 'postgres') {
    // Loaded only when configured: the PostgreSQL and Redis clients cost the embedded default
    // tens of megabytes of resident memory it never uses (docs/performance.md).
    const { openPostgresStore } = await import('../store/postgres/open-postgres-store.ts');
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
