import type { FastifyInstance } from 'fastify';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { describeRouting, describeTarget } from '../../routing/describe-routing.ts';
import { findTargets } from '../../routing/find-targets.ts';
import type { Router } from '../../routing/router.ts';
import { presentRoutingOverview, presentTargetOverview } from '../present-routing-overview.ts';

export interface RoutingAdminDependencies {
  catalog: ModelCatalog;
  router: Router;
}

const hidden = { hide: true };

/**
 * What the router knows, and the operator's hand on it (docs/operations.md, "Routing"). Registered
 * inside the admin routes, behind their token check. Each answer is this process's view: with
 * shared routing state an enable or a learned failure reaches the others, a reset does not.
 */
export async function routingAdminRoutes(
  app: FastifyInstance,
  { catalog, router }: RoutingAdminDependencies,
): Promise<void> {
  app.get('/api/admin/routing', { schema: hidden }, async () =>
    presentRoutingOverview(describeRouting(catalog.all(), router)),
  );

  // A target id holds `/` and `#`: the client percent-encodes it as one path segment.
  app.post('/api/admin/routing/targets/:target/enable', { schema: hidden }, async (request) => {
    const { target: name } = request.params as { target: string };
    const targets = findTargets(catalog.all(), name);
    if (targets.length === 0) {
      throw new ApiError(
        'not_found',
        // The name is not echoed: a key pasted in place of its id would come back in the answer.
        'No configured target or key has this name (a target or key id); GET /api/admin/routing lists them.',
      );
    }
    for (const target of targets) router.enable(target);
    const now = router.now();
    return {
      enabled: targets.map((target) => presentTargetOverview(describeTarget(router, target, now))),
    };
  });

  app.post('/api/admin/routing/reset', { schema: hidden }, async () => {
    router.forget();
    return { reset: true };
  });
}
