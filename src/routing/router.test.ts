import { describe, expect, it } from 'vitest';
import { ModelCatalog, type CatalogModel, type RoutingTarget } from '../catalog/model-catalog.ts';
import { parseConfig } from '../config/load-config.ts';
import type { UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import { MemoryRoutingState } from './memory-routing-state.ts';
import { Router } from './router.ts';

interface DeploymentSpec {
  provider: string;
  weight?: number;
  priority?: number;
}

/**
 * A router over one catalog on a clock the test moves. Providers have the given number of keys;
 * models are named after their strategy unless given.
 */
function setUp(options: {
  keys?: Record<string, number>;
  models: Record<string, { strategy?: string; deployments: DeploymentSpec[] }>;
  routing?: Record<string, unknown>;
}) {
  const env: Record<string, string> = {};
  const providers: Record<string, unknown> = {};
  const providerIds = new Set(
    Object.values(options.models).flatMap((model) => model.deployments.map((d) => d.provider)),
  );
  for (const id of providerIds) {
    const count = options.keys?.[id] ?? 1;
    const variables = Array.from({ length: count }, (_, index) => `KEY_${id}_${index}`);
    for (const variable of variables) env[variable] = `secret-${variable}`;
    providers[id] = { kind: 'anthropic', baseUrl: 'http://127.0.0.1:1', apiKeyEnv: variables };
  }
  const config = parseConfig({
    dataDir: '/nonexistent',
    providers,
    routing: options.routing ?? {},
    models: Object.entries(options.models).map(([id, model]) => ({
      id,
      deployments: model.deployments.map((deployment) => ({
        provider: deployment.provider,
        upstreamModel: `${deployment.provider}-model`,
        ...(deployment.weight !== undefined ? { weight: deployment.weight } : {}),
        ...(deployment.priority !== undefined ? { priority: deployment.priority } : {}),
      })),
      routing: { strategy: model.strategy ?? 'weighted' },
      contextWindow: 1000,
      maxOutputTokens: 100,
      pricing: { input: 1, output: 1 },
    })),
  });
  const catalog = new ModelCatalog(config, env);
  let clock = 1_000_000;
  const now = () => clock;
  const router = new Router(new MemoryRoutingState({ maxPins: 100, now }), config.routing, now);
  return {
    router,
    model: (id: string) => catalog.get(id) as CatalogModel,
    advance: (ms: number) => void (clock += ms),
    now,
  };
}

/** How often each target's provider was chosen over `count` choices of fresh requests. */
function tally(
  router: Router,
  model: CatalogModel,
  count: number,
  now: number,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let index = 0; index < count; index += 1) {
    const target = router.choose(model, [], now) as RoutingTarget;
    counts[target.id] = (counts[target.id] ?? 0) + 1;
  }
  return counts;
}

const answer = { statusCode: 200, headers: {} } as unknown as UpstreamResponse;

describe('weighted strategy (smooth weighted round robin)', () => {
  it('gives exact shares, spread evenly rather than in runs', () => {
    const { router, model, now } = setUp({
      models: {
        spread: {
          deployments: [
            { provider: 'a', weight: 5 },
            { provider: 'b', weight: 3 },
            { provider: 'c', weight: 2 },
          ],
        },
      },
    });
    const picks: string[] = [];
    for (let index = 0; index < 100; index += 1)
      picks.push(
        (router.choose(model('spread'), [], now()) as RoutingTarget).deployment.providerId,
      );
    for (let start = 0; start < 100; start += 10) {
      const window = picks.slice(start, start + 10);
      expect(window.filter((id) => id === 'a')).toHaveLength(5);
      expect(window.filter((id) => id === 'b')).toHaveLength(3);
      expect(window.filter((id) => id === 'c')).toHaveLength(2);
    }
    // Never the same deployment three times in a row at weights 5:3:2.
    expect(picks.join(',')).not.toMatch(/(\w),\1,\1/);
  });

  it("splits a deployment's weight among its keys", () => {
    const { router, model, now } = setUp({
      keys: { a: 2 },
      models: {
        keyed: {
          deployments: [
            { provider: 'a', weight: 2 },
            { provider: 'b', weight: 1 },
          ],
        },
      },
    });
    const counts = tally(router, model('keyed'), 30, now());
    expect(Object.values(counts)).toEqual([10, 10, 10]);
  });

  it('skips the tried targets and keeps to the best usable priority', () => {
    const { router, model, now } = setUp({
      models: {
        tiered: {
          deployments: [
            { provider: 'spare', priority: 1 },
            { provider: 'main', priority: 0 },
            { provider: 'other', priority: 0 },
          ],
        },
      },
    });
    const tiered = model('tiered');
    const first = router.choose(tiered, [], now()) as RoutingTarget;
    expect(first.deployment.priority).toBe(0);
    const second = router.choose(tiered, [first], now()) as RoutingTarget;
    expect(second.deployment.priority).toBe(0);
    expect(second).not.toBe(first);
    expect(router.choose(tiered, [first, second], now())?.deployment.providerId).toBe('spare');
    expect(router.choose(tiered, [...tiered.targets], now())).toBeUndefined();
  });
});

describe('least-busy strategy', () => {
  it('prefers the target with fewer calls in flight, per unit of weight', () => {
    const { router, model, now } = setUp({
      models: {
        'least-busy': {
          strategy: 'least-busy',
          deployments: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c', weight: 2 }],
        },
      },
    });
    const busy = model('least-busy');
    const [a, b, c] = busy.targets as RoutingTarget[];
    router.take(a as RoutingTarget, now());
    router.take(a as RoutingTarget, now());
    router.take(b as RoutingTarget, now());
    router.take(c as RoutingTarget, now());
    router.take(c as RoutingTarget, now());
    // a: 2 in flight, b: 1, c: 2 at weight 2 → 1. b and c tie, and share by weight.
    expect(tally(router, busy, 30, now())).toEqual({
      [(b as RoutingTarget).id]: 10,
      [(c as RoutingTarget).id]: 20,
    });
    router.finished(a as RoutingTarget);
    router.finished(a as RoutingTarget);
    expect(router.choose(busy, [], now())).toBe(a);
    // Never below zero: a stray finish does not make a target look idler than idle.
    router.finished(a as RoutingTarget);
    expect(router.health((a as RoutingTarget).id).inFlight).toBe(0);
  });
});

describe('latency strategy', () => {
  function latencyBed() {
    const bed = setUp({
      models: {
        latency: {
          strategy: 'latency',
          deployments: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c' }],
        },
      },
    });
    const model = bed.model('latency');
    return { ...bed, latency: model, targets: model.targets as RoutingTarget[] };
  }

  it('tries an unmeasured target first', () => {
    const { router, latency, targets, now } = latencyBed();
    router.answered(targets[0] as RoutingTarget, answer, 50);
    router.answered(targets[1] as RoutingTarget, answer, 50);
    expect(router.choose(latency, [], now())).toBe(targets[2]);
  });

  it('shares the calls among targets within 10 % of the fastest, and skips the slower', () => {
    const { router, latency, targets, now } = latencyBed();
    const [a, b, c] = targets as [RoutingTarget, RoutingTarget, RoutingTarget];
    router.answered(a, answer, 100);
    router.answered(b, answer, 110);
    router.answered(c, answer, 111);
    expect(tally(router, latency, 10, now())).toEqual({ [a.id]: 5, [b.id]: 5 });
  });

  it('follows an exponentially weighted average of the time to first byte', () => {
    const { router, latency, targets, now } = latencyBed();
    const [a, b, c] = targets as [RoutingTarget, RoutingTarget, RoutingTarget];
    router.answered(a, answer, 100);
    router.answered(b, answer, 200);
    router.answered(c, answer, 400);
    router.answered(b, answer, 50);
    // 200 + 0.3 × (50 − 200)
    expect(router.health(b.id).ttfbMs).toBeCloseTo(155, 6);
    expect(tally(router, latency, 4, now())).toEqual({ [a.id]: 4 });
    router.answered(b, answer, 50);
    router.answered(b, answer, 50);
    // 155 → 123.5 → 101.45: now the fastest, a within 10 % of it.
    expect(router.health(b.id).ttfbMs).toBeCloseTo(101.45, 6);
    expect(tally(router, latency, 4, now())).toEqual({ [a.id]: 2, [b.id]: 2 });
  });
});

describe('health learned from failures', () => {
  it('cools a rate-limited target for its retry-after, or cooldownSeconds without one', () => {
    const { router, model, now, advance } = setUp({
      keys: { a: 2 },
      models: { pooled: { deployments: [{ provider: 'a' }] } },
      routing: { cooldownSeconds: 12 },
    });
    const [first, second] = model('pooled').targets as [RoutingTarget, RoutingTarget];
    router.failed(first, 'rate_limited', 3_000);
    router.failed(second, 'rate_limited', undefined);
    expect(router.usable(first, now())).toBe(false);
    expect(router.blocked(model('pooled'), [], now())).toMatchObject({
      reason: 'cooldown',
      until: now() + 3_000,
    });
    advance(3_000);
    expect(router.usable(first, now())).toBe(true);
    expect(router.usable(second, now())).toBe(false);
    advance(9_000);
    expect(router.usable(second, now())).toBe(true);
  });

  it('takes a refused key out for every model using it, and only that key', () => {
    const { router, model, now } = setUp({
      keys: { shared: 2 },
      models: {
        one: { deployments: [{ provider: 'shared' }] },
        two: { deployments: [{ provider: 'shared' }, { provider: 'own' }] },
      },
    });
    const [refused, fine] = model('one').targets as [RoutingTarget, RoutingTarget];
    router.failed(refused, 'refused', undefined);
    const [twoRefused, twoFine, own] = model('two').targets as RoutingTarget[];
    expect(twoRefused?.keyScope).toBe(refused.keyScope);
    expect(router.usable(twoRefused as RoutingTarget, now())).toBe(false);
    expect(router.usable(twoFine as RoutingTarget, now())).toBe(true);
    expect(router.usable(fine, now())).toBe(true);
    expect(router.usable(own as RoutingTarget, now())).toBe(true);
  });

  it('lets one probe through an open circuit once its wait is over', () => {
    const { router, model, now, advance } = setUp({
      keys: { a: 1 },
      models: { single: { deployments: [{ provider: 'a' }] } },
      routing: { failureThreshold: 2, circuitOpenSeconds: 10 },
    });
    const single = model('single');
    const [target] = single.targets as [RoutingTarget];
    router.failed(target, 'server', undefined);
    expect(router.usable(target, now())).toBe(true);
    router.failed(target, 'timeout', undefined);
    expect(router.usable(target, now())).toBe(false);
    expect(router.blocked(single, [], now())).toMatchObject({
      reason: 'circuit',
      until: now() + 10_000,
    });

    advance(10_000);
    expect(router.usable(target, now())).toBe(true);
    router.take(target, now());
    // The probe is under way: nobody else goes.
    expect(router.usable(target, now())).toBe(false);
    router.failed(target, 'server', undefined);
    router.finished(target);
    expect(router.usable(target, now())).toBe(false);

    advance(10_000);
    router.take(target, now());
    router.answered(target, answer, 20);
    router.finished(target);
    expect(router.health(target.id).circuit).toBe('closed');
    expect(router.usable(target, now())).toBe(true);
  });

  it('gives back the probe of a call abandoned before its answer, and only that one', async () => {
    const { router, model, now, advance } = setUp({
      models: { single: { deployments: [{ provider: 'a' }] } },
      routing: { disabledProbeSeconds: 10 },
    });
    const single = model('single');
    const [target] = single.targets as [RoutingTarget];
    router.failed(target, 'refused', undefined);
    advance(10_000);
    const probing = await router.plan(single, undefined);
    expect(probing.next()).toBe(target);
    expect(router.usable(target, now())).toBe(false);
    probing.abandon(target);
    expect(router.usable(target, now())).toBe(true);

    // A call that claimed no probe gives nothing back.
    const claimed = await router.plan(single, undefined);
    expect(claimed.next()).toBe(target);
    const unclaimed = await router.plan(single, undefined);
    unclaimed.abandon(target);
    expect(router.usable(target, now())).toBe(false);
  });

  it('does not count a client error against the target', () => {
    const { router, model, now } = setUp({
      models: { single: { deployments: [{ provider: 'a' }] } },
      routing: { failureThreshold: 2 },
    });
    const [target] = model('single').targets as [RoutingTarget];
    router.failed(target, 'server', undefined);
    router.failed(target, 'client', undefined);
    router.failed(target, 'context', undefined);
    router.failed(target, 'server', undefined);
    expect(router.usable(target, now())).toBe(true);
  });

  it('cools a target whose answer says a counter is used up', () => {
    const { router, model, now } = setUp({
      models: { single: { deployments: [{ provider: 'a' }] } },
    });
    const [target] = model('single').targets as [RoutingTarget];
    const exhausted = {
      statusCode: 200,
      headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' },
    } as unknown as UpstreamResponse;
    router.answered(target, exhausted, 10);
    expect(router.usable(target, now())).toBe(false);
    expect(router.health(target.id).coolUntil).toBe(now() + 2_000);
  });
});
