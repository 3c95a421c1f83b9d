import type { AccountStore } from '../auth/account-store.ts';
import type { ApiKeyStore } from '../auth/api-key-store.ts';
import type { CreditLedger } from '../billing/credit-ledger.ts';
import type { DashboardSessionStore } from '../dashboard/dashboard-session-store.ts';
import type { ImageJobStore } from '../features/images/image-job-store.ts';
import type { AssetStore } from '../features/storage/asset-store.ts';
import type { UsageStore } from '../generation/usage-store.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import type { ResponseStore } from '../responses-state/response-store.ts';

/** The durable ports behind one database, as compose wires them (docs/architecture.md). */
export interface Store {
  accounts: AccountStore;
  apiKeys: ApiKeyStore;
  ledger: CreditLedger;
  usage: UsageStore;
  responses: ResponseStore;
  idempotency: IdempotencyStore;
  assets: AssetStore;
  imageJobs: ImageJobStore;
  dashboardSessions: DashboardSessionStore;
  /** Runs a trivial query; GET /readyz answers from it. */
  ping(): Promise<void>;
  /** Closes the database connection or pool; the store is unusable afterwards. */
  close(): Promise<void>;
}
