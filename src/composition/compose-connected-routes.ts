import { resolveConnectedTargets } from '../connected/resolve-connected-targets.ts';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { connectedRoutes } from '../http/routes/connected-routes.ts';

/** The routes clients call besides generation, relayed as they are (docs/decisions/0010). */
export function composeConnectedRoutes(parts: GatewayParts): GatewayFeature {
  return {
    routes: [
      (app) =>
        connectedRoutes(app, {
          authenticator: parts.authenticator,
          ...resolveConnectedTargets(parts.config.connected, parts.env),
        }),
    ],
  };
}
