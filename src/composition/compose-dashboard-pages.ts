import { fileURLToPath } from 'node:url';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import { dashboardPages } from '../http/routes/dashboard-pages.ts';

/**
 * The dashboard's built pages, read from `directory` or else from dashboard/ beside this module:
 * in the build that is dist/dashboard/ beside dist/main.js, which `npm run build` writes. Run from
 * source (tsx, tests) the folder is absent unless a test names one, and /dashboard says to build.
 */
export function composeDashboardPages(directory: string | undefined): GatewayFeature {
  const pages = directory ?? fileURLToPath(new URL('./dashboard/', import.meta.url));
  return { routes: [(app) => dashboardPages(app, { directory: pages })] };
}
