import { Counter, Gauge, type Registry } from 'prom-client';
import type { CatalogModel, RoutingTarget } from '../catalog/model-catalog.ts';
import type { Router } from './router.ts';
import type { FailureClass, TargetHealth } from './target-health.ts';

type TargetLabel = 'provider' | 'deployment' | 'key';
const targetLabels: TargetLabel[] = ['provider', 'deployment', 'key'];

/** Each configured target once, however many models deploy it. */
function* configuredTargets(models: readonly CatalogModel[]): Generator<RoutingTarget> {
  const seen = new Set<string>();
  for (const model of models) {
    for (const target of model.targets) {
      if (seen.has(target.id)) continue;
      seen.add(target.id);
      yield target;
    }
  }
}

const labelsOf = (target: RoutingTarget): Record<TargetLabel, string> => ({
  provider: target.deployment.providerId,
  deployment: target.deployment.label,
  key: target.key.id,
});

/**
 * The router's health on GET /metrics (docs/operations.md): read from the routing state when
 * scraped, so a routed call pays nothing for them. Labels are the configuration's provider,
 * deployment and key ids (a hash of the key, never the key), so the series are bounded by it; a
 * target a reload removed leaves them. Counters count since start in this process (an operator's
 * reset starts them again).
 */
export function createRoutingMetrics(
  registry: Registry,
  source: { models: () => readonly CatalogModel[]; router: Router },
): void {
  const { router } = source;
  /** Runs `set` for each configured target's health and its key's, after `reset`. */
  const eachTarget = (
    metric: { reset(): void },
    set: (labels: Record<TargetLabel, string>, health: TargetHealth, key: TargetHealth) => void,
  ) => {
    metric.reset();
    for (const target of configuredTargets(source.models()))
      set(labelsOf(target), router.health(target.id), router.health(target.keyScope));
  };
  const counter = (name: string, help: string, read: (health: TargetHealth) => number) =>
    new Counter({
      name,
      help,
      labelNames: targetLabels,
      registers: [registry],
      collect() {
        eachTarget(this, (labels, health) => this.inc(labels, read(health)));
      },
    });
  const gauge = (
    name: string,
    help: string,
    read: (health: TargetHealth, key: TargetHealth, now: number) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: targetLabels,
      registers: [registry],
      collect() {
        const now = router.now();
        eachTarget(this, (labels, health, key) => this.set(labels, read(health, key, now)));
      },
    });

  counter('switchyard_routing_calls_total', 'Calls sent to a target.', (health) => health.calls);
  new Counter({
    name: 'switchyard_routing_failures_total',
    help: 'Failed calls of a target, by how they failed.',
    labelNames: [...targetLabels, 'class'],
    registers: [registry],
    collect() {
      eachTarget(this, (labels, health) => {
        for (const [failure, count] of Object.entries(health.failuresByClass))
          this.inc({ ...labels, class: failure as FailureClass }, count);
      });
    },
  });
  counter(
    'switchyard_routing_cooldowns_total',
    'Times a target was cooled down (a 429, or a rate-limit count at 0).',
    (health) => health.cooldowns,
  );
  counter(
    'switchyard_routing_circuit_opens_total',
    "Times a target's circuit opened.",
    (health) => health.circuitOpens,
  );
  counter(
    'switchyard_routing_affinity_hits_total',
    'Calls that went to the target a conversation was pinned to.',
    (health) => health.affinityHits,
  );
  gauge(
    'switchyard_routing_circuit_open',
    "1 while a target's circuit is open (probe under way included).",
    (health) => (health.circuit === 'open' ? 1 : 0),
  );
  gauge(
    'switchyard_routing_cooling',
    '1 while a target or its key is cooling down.',
    (health, key, now) => (health.coolUntil > now || key.coolUntil > now ? 1 : 0),
  );
  new Gauge({
    name: 'switchyard_routing_disabled',
    help: "1 while a target's key is out of rotation: refused (401/403) or out of credit (quota).",
    labelNames: [...targetLabels, 'reason'],
    registers: [registry],
    collect() {
      eachTarget(this, (labels, health, key) => {
        const reason = key.disabled ?? health.disabled;
        this.set({ ...labels, reason: 'refused' }, reason === 'refused' ? 1 : 0);
        this.set({ ...labels, reason: 'quota' }, reason === 'quota' ? 1 : 0);
      });
    },
  });
  gauge(
    'switchyard_routing_in_flight',
    'Calls of a target waiting for their answer.',
    (health) => health.inFlight,
  );
  new Gauge({
    name: 'switchyard_routing_ttfb_seconds',
    help: "A target's time to the answer's headers, averaged (none before its first answer).",
    labelNames: targetLabels,
    registers: [registry],
    collect() {
      eachTarget(this, (labels, health) => {
        if (health.ttfbMs >= 0) this.set(labels, health.ttfbMs / 1000);
      });
    },
  });
  new Gauge({
    name: 'switchyard_routing_pinned_sessions',
    help: "Conversations pinned to a target in this process's affinity table.",
    registers: [registry],
    collect() {
      this.set(router.state.pinnedCount);
    },
  });
}
