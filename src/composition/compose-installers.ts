import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { installRoutes } from '../http/routes/install-routes.ts';

/** The client installers under `/install/` (docs/installers.md). */
export function composeInstallers(parts: GatewayParts): GatewayFeature {
  return {
    routes: [(app) => installRoutes(app, { publicBaseUrl: parts.config.server.publicBaseUrl })],
  };
}
