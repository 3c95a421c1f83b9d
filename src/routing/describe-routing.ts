import type { CatalogModel, RoutingTarget } from '../catalog/model-catalog.ts';
import type { Router } from './router.ts';
import type { FailureClass } from './target-health.ts';
import { targetState, type TargetStateName } from './target-state.ts';

/** One target as the operator sees it: where it sends, with which key, and how it is doing. */
export interface TargetOverview {
  id: string;
  provider: string;
  /** `provider/upstream-model`. */
  deployment: string;
  priority: number;
  weight: number;
  keyId: string;
  /** The variable the key is read from; never the key itself. */
  keyEnv: string | undefined;
  state: TargetStateName;
  until: number | undefined;
  inFlight: number;
  /** Time to the answer's headers, averaged; undefined before the first answer. */
  ttfbMs: number | undefined;
  calls: number;
  failures: Readonly<Record<FailureClass, number>>;
  cooldowns: number;
  circuitOpens: number;
  affinityHits: number;
}

export interface ModelRoutingOverview {
  id: string;
  strategy: CatalogModel['routing']['strategy'];
  affinity: boolean;
  fallbacks: readonly string[];
  /** In routing order: lowest priority first. */
  targets: TargetOverview[];
}

export interface RoutingOverview {
  models: ModelRoutingOverview[];
  /** Conversations pinned to a target in this process's table. */
  pinnedSessions: number;
}

/** This process's view of a target, read from the router without changing it. */
export function describeTarget(router: Router, target: RoutingTarget, now: number): TargetOverview {
  const health = router.health(target.id);
  const { state, until } = targetState(health, router.health(target.keyScope), now);
  return {
    id: target.id,
    provider: target.deployment.providerId,
    deployment: target.deployment.label,
    priority: target.deployment.priority,
    weight: target.deployment.weight,
    keyId: target.key.id,
    keyEnv: target.key.env,
    state,
    until,
    inFlight: health.inFlight,
    ttfbMs: health.ttfbMs < 0 ? undefined : health.ttfbMs,
    calls: health.calls,
    failures: { ...health.failuresByClass },
    cooldowns: health.cooldowns,
    circuitOpens: health.circuitOpens,
    affinityHits: health.affinityHits,
  };
}

/** Every configured model's targets and their health, as this process sees them. */
export function describeRouting(models: readonly CatalogModel[], router: Router): RoutingOverview {
  const now = router.now();
  return {
    models: models.map((model) => ({
      id: model.id,
      strategy: model.routing.strategy,
      affinity: model.routing.affinity,
      fallbacks: model.fallbacks,
      targets: model.targets.map((target) => describeTarget(router, target, now)),
    })),
    pinnedSessions: router.state.pinnedCount,
  };
}
