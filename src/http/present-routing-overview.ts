import type { RoutingOverview, TargetOverview } from '../routing/describe-routing.ts';

const isoOrNull = (epochMs: number | undefined) =>
  epochMs === undefined ? null : new Date(epochMs).toISOString();

/** A target in the admin API's words; key ids and variable names only, never a key. */
export function presentTargetOverview(target: TargetOverview) {
  return {
    id: target.id,
    provider: target.provider,
    deployment: target.deployment,
    priority: target.priority,
    weight: target.weight,
    key_id: target.keyId,
    key_env: target.keyEnv ?? null,
    state: target.state,
    until: isoOrNull(target.until),
    in_flight: target.inFlight,
    ttfb_ms: target.ttfbMs === undefined ? null : Math.round(target.ttfbMs),
    counters: {
      calls: target.calls,
      failures: target.failures,
      cooldowns: target.cooldowns,
      circuit_opens: target.circuitOpens,
      affinity_hits: target.affinityHits,
    },
  };
}

/** GET /api/admin/routing (docs/operations.md, "Routing"). */
export function presentRoutingOverview(overview: RoutingOverview) {
  return {
    models: overview.models.map((model) => ({
      id: model.id,
      strategy: model.strategy,
      affinity: model.affinity,
      fallbacks: model.fallbacks,
      targets: model.targets.map(presentTargetOverview),
    })),
    pinned_sessions: overview.pinnedSessions,
  };
}
