import type { Registry } from 'prom-client';

import { DashboardSessions } from '../dashboard/dashboard-sessions.ts';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { StorageService } from '../features/storage/storage-service.ts';
import { dashboardRoutes } from '../http/routes/dashboard-routes.ts';
import type { OperatorService } from '../operator/operator-service.ts';
import type { Store } from '../store/store.ts';

/**
 * The dashboard's JSON API (docs/decisions/0168) over the operator's use cases and the stores.
 * Image jobs are listed only when image generation is configured.
 */
export function composeDashboard(
  parts: GatewayParts,
  dependencies: {
    store: Store;
    operator: OperatorService;
    storage: StorageService | undefined;
    metrics: Registry;
  },
): GatewayFeature {
  const { store } = dependencies;
  const sessions = new DashboardSessions({
    sessions: store.dashboardSessions,
    accounts: store.accounts,
    now: parts.now,
  });
  return {
    routes: [
      (app) =>
        dashboardRoutes(app, {
          sessions,
          operator: dependencies.operator,
          authenticator: parts.authenticator,
          publicBaseUrl: parts.config.server.publicBaseUrl,
          ...(parts.billing.budgets !== undefined ? { budgets: parts.billing.budgets } : {}),
          ...(dependencies.storage !== undefined ? { storage: dependencies.storage } : {}),
          ...(parts.config.images !== undefined ? { imageJobs: store.imageJobs } : {}),
          routing: { catalog: parts.catalog, router: parts.router },
          metrics: dependencies.metrics,
        }),
    ],
  };
}
