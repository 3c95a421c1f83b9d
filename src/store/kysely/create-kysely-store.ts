import { sql } from 'kysely';
import type { Kysely } from 'kysely';

import type { Store } from '../store.ts';
import { KyselyAccountStore } from './kysely-account-store.ts';
import { KyselyApiKeyStore } from './kysely-api-key-store.ts';
import { KyselyCreditLedger } from './kysely-credit-ledger.ts';
import { KyselyAssetStore } from './kysely-asset-store.ts';
import type { Database, StoreDialect } from './kysely-database.ts';
import { KyselyDashboardSessionStore } from './kysely-dashboard-session-store.ts';
import { KyselyIdempotencyStore } from './kysely-idempotency-store.ts';
import { KyselyImageJobStore } from './kysely-image-job-store.ts';
import { KyselyResponseStore } from './kysely-response-store.ts';
import { KyselyUsageStore } from './kysely-usage-store.ts';

/** Wires every port onto one already migrated database. */
export function createKyselyStore(database: Kysely<Database>, dialect: StoreDialect): Store {
  return {
    accounts: new KyselyAccountStore(database),
    apiKeys: new KyselyApiKeyStore(database),
    ledger: new KyselyCreditLedger(database, dialect),
    usage: new KyselyUsageStore(database, dialect),
    responses: new KyselyResponseStore(database),
    idempotency: new KyselyIdempotencyStore(database),
    assets: new KyselyAssetStore(database, dialect),
    imageJobs: new KyselyImageJobStore(database, dialect),
    dashboardSessions: new KyselyDashboardSessionStore(database),
    async ping(): Promise<void> {
      await sql`select 1`.execute(database);
    },
    async close(): Promise<void> {
      await database.destroy();
    },
  };
}
