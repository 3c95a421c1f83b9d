import type { CatalogModel, RoutingTarget } from '../catalog/model-catalog.ts';
import type { RoutingConfig } from '../config/config-schema.ts';
import type { UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import { KeyBudgets } from './key-budgets.ts';
import { readExhaustedUntil } from './read-rate-limit-headers.ts';
import type { RoutingState } from './routing-state.ts';
import { availableAt, readiness, type FailureClass, type TargetHealth } from './target-health.ts';

/** A failure that is the target's own, whether or not another target could avoid it. */
const circuitFailures: ReadonlySet<FailureClass> = new Set(['server', 'timeout', 'connection']);

/** Candidates this close to the fastest share its calls under `latency` (avoids herding). */
const latencyTolerance = 1.1;
/** Weight of the newest sample in the time-to-first-byte average. */
const ewmaAlpha = 0.3;

/** The probes one call holds: of its target's open circuit, of its disabled key, or both. */
export interface ProbeClaim {
  target: boolean;
  key: boolean;
}

/** Why no target could take a call: what the client is told (generation-service.ts). */
export interface Blocked {
  reason: 'cooldown' | 'circuit' | 'disabled' | 'budget';
  /** The target that may be tried first. */
  target: RoutingTarget;
  /** Why its key is out of rotation, when it is. */
  disabled: 'refused' | 'quota' | undefined;
  /** Epoch ms when the first of them may be tried again. */
  until: number;
}

/**
 * The routing use case (docs/routing.md): turns a model and a conversation into attempts, one
 * target (deployment, key) at a time, and learns each target's health from what the upstream
 * answered. Decisions read the state synchronously and allocate nothing per candidate.
 */
export class Router {
  readonly #state: RoutingState;
  #budgets = new KeyBudgets();
  /** Smooth weighted round robin's running weights, per target (this process). */
  readonly #currentWeights = new Map<string, number>();
  readonly #now: () => number;
  #config: RoutingConfig;

  constructor(state: RoutingState, config: RoutingConfig, now: () => number) {
    this.#state = state;
    this.#config = config;
    this.#now = now;
  }

  get config(): RoutingConfig {
    return this.#config;
  }

  get state(): RoutingState {
    return this.#state;
  }

  /** Starts afresh: every target healthy, no pins, no budgets spent (an operator's reset). */
  forget(): void {
    this.#state.forget();
    this.#currentWeights.clear();
    this.#budgets = new KeyBudgets();
  }

  /**
   * The operator's command: the target and its key back in rotation at once, in every process
   * sharing the state. `enabled` also ends a cooldown, so nothing learned keeps the target out.
   */
  enable(target: RoutingTarget): void {
    this.#state.publish({ kind: 'enabled', target: target.keyScope });
    this.#state.publish({ kind: 'enabled', target: target.id });
    this.#state.publish({ kind: 'circuit-closed', target: target.id });
  }

  /** A reloaded configuration: what is learned about targets stays. */
  configure(config: RoutingConfig): void {
    this.#config = config;
  }

  /**
   * The attempts of one request on `model`. With a `session` (affinity on and more than one
   * target), the target that served the conversation comes first while it is usable.
   */
  plan(model: CatalogModel, session: string | undefined): RoutePlan | Promise<RoutePlan> {
    if (session === undefined || model.targets.length < 2 || !model.routing.affinity)
      return new RoutePlan(this, model, undefined, undefined);
    const pinned = this.#state.pinned(session);
    if (typeof pinned === 'string' || pinned === undefined)
      return new RoutePlan(this, model, session, pinned);
    return pinned.then((target) => new RoutePlan(this, model, session, target));
  }

  /** Usable now: healthy, or the one probe an open circuit or a disabled key allows. */
  usable(target: RoutingTarget, now: number): boolean {
    return (
      readiness(this.#state.health(target.id), now) !== 'out' &&
      readiness(this.#state.health(target.keyScope), now) !== 'out' &&
      this.#budgets.allows(target.key, now)
    );
  }

  /**
   * The chosen target: claims its probe when it is one, and counts its call. Returns the claim,
   * undefined when the call is no probe.
   */
  take(target: RoutingTarget, now: number): ProbeClaim | undefined {
    const health = this.#state.health(target.id);
    const key = this.#state.health(target.keyScope);
    const claimsTarget = readiness(health, now) === 'probe';
    const claimsKey = readiness(key, now) === 'probe';
    if (claimsTarget) health.probing = true;
    if (claimsKey) key.probing = true;
    health.calls += 1;
    health.inFlight += 1;
    this.#budgets.spendRequest(target.key, now);
    return claimsTarget || claimsKey ? { target: claimsTarget, key: claimsKey } : undefined;
  }

  /**
   * A probe that ended without an answer (its client went away): it taught nothing, so the next
   * call may probe; otherwise the target would stay out for good.
   */
  releaseProbe(target: RoutingTarget, claim: ProbeClaim): void {
    if (claim.target) this.#state.health(target.id).probing = false;
    if (claim.key) this.#state.health(target.keyScope).probing = false;
  }

  /** Among `model`'s untried usable targets of the best priority, the strategy's choice. */
  choose(
    model: CatalogModel,
    tried: readonly RoutingTarget[],
    now: number,
  ): RoutingTarget | undefined {
    const targets = model.targets;
    let priority = Infinity;
    for (const target of targets) {
      if (target.deployment.priority >= priority) continue;
      if (!tried.includes(target) && this.usable(target, now))
        priority = target.deployment.priority;
    }
    if (priority === Infinity) return undefined;
    const strategy = model.routing.strategy;
    let best = Infinity;
    if (strategy !== 'weighted') {
      for (const target of targets) {
        if (!this.#inGroup(target, priority, tried, now)) continue;
        best = Math.min(best, this.#score(strategy, target));
      }
    }
    // Smooth weighted round robin over the group (or, for the other strategies, over the
    // targets that tie for the best score): exact shares, no randomness to test around.
    let chosen: RoutingTarget | undefined;
    let chosenWeight = -Infinity;
    let total = 0;
    for (const target of targets) {
      if (!this.#inGroup(target, priority, tried, now)) continue;
      if (strategy !== 'weighted') {
        const score = this.#score(strategy, target);
        if (strategy === 'latency' ? score > best * latencyTolerance : score > best) continue;
      }
      const weight = target.deployment.weight / target.deployment.targets.length;
      const current = (this.#currentWeights.get(target.id) ?? 0) + weight;
      this.#currentWeights.set(target.id, current);
      total += weight;
      if (current > chosenWeight) {
        chosen = target;
        chosenWeight = current;
      }
    }
    if (chosen !== undefined) this.#currentWeights.set(chosen.id, chosenWeight - total);
    return chosen;
  }

  #inGroup(
    target: RoutingTarget,
    priority: number,
    tried: readonly RoutingTarget[],
    now: number,
  ): boolean {
    return (
      target.deployment.priority === priority && !tried.includes(target) && this.usable(target, now)
    );
  }

  #score(strategy: 'least-busy' | 'latency', target: RoutingTarget): number {
    const health = this.#state.health(target.id);
    if (strategy === 'least-busy') return health.inFlight / target.deployment.weight;
    // A target never measured is tried first, so every one gets measured.
    return health.ttfbMs < 0 ? 0 : health.ttfbMs;
  }

  /** Why none of the untried targets is usable, and until when. */
  blocked(model: CatalogModel, tried: readonly RoutingTarget[], now: number): Blocked | undefined {
    let blocked: Blocked | undefined;
    for (const target of model.targets) {
      if (tried.includes(target)) continue;
      const health = this.#state.health(target.id);
      const key = this.#state.health(target.keyScope);
      const until = Math.max(
        availableAt(health),
        availableAt(key),
        this.#budgets.availableAt(target.key, now),
      );
      const reason: Blocked['reason'] =
        key.disabled !== undefined || health.disabled !== undefined
          ? 'disabled'
          : health.circuit === 'open'
            ? 'circuit'
            : health.coolUntil > now || key.coolUntil > now
              ? 'cooldown'
              : 'budget';
      if (blocked === undefined || until < blocked.until)
        blocked = { reason, until, target, disabled: key.disabled ?? health.disabled };
    }
    return blocked;
  }

  /** The upstream answered below 400: the target is healthy; a counter at 0 cools it down. */
  answered(target: RoutingTarget, response: UpstreamResponse, ttfbMs: number): void {
    const now = this.#now();
    const health = this.#state.health(target.id);
    const key = this.#state.health(target.keyScope);
    health.ttfbMs =
      health.ttfbMs < 0 ? ttfbMs : health.ttfbMs + ewmaAlpha * (ttfbMs - health.ttfbMs);
    health.failures = 0;
    health.probing = false;
    key.probing = false;
    if (health.circuit === 'open')
      this.#state.publish({ kind: 'circuit-closed', target: target.id });
    if (key.disabled !== undefined)
      this.#state.publish({ kind: 'enabled', target: target.keyScope });
    const exhaustedUntil = readExhaustedUntil(response.headers, now);
    if (exhaustedUntil > 0)
      this.#state.publish({ kind: 'cooldown', target: target.id, until: exhaustedUntil });
  }

  /** The attempt failed: what it says about the target (docs/routing.md). */
  failed(target: RoutingTarget, failure: FailureClass, retryAfterMs: number | undefined): void {
    const now = this.#now();
    const health = this.#state.health(target.id);
    const key = this.#state.health(target.keyScope);
    health.failuresByClass[failure] += 1;
    const wasProbe = health.probing || key.probing;
    health.probing = false;
    key.probing = false;
    const config = this.#config;
    if (failure === 'rate_limited') {
      const until = now + (retryAfterMs ?? config.cooldownSeconds * 1000);
      this.#state.publish({ kind: 'cooldown', target: target.id, until });
      return;
    }
    if (failure === 'refused' || failure === 'quota') {
      // The key's fault, for every deployment using it; never the whole provider's.
      const until = now + config.disabledProbeSeconds * 1000;
      this.#state.publish({ kind: 'disabled', target: target.keyScope, reason: failure, until });
      return;
    }
    if (!circuitFailures.has(failure)) {
      health.failures = 0;
      return;
    }
    health.failures += 1;
    if (wasProbe || health.failures >= config.failureThreshold) {
      const until = now + config.circuitOpenSeconds * 1000;
      this.#state.publish({ kind: 'circuit-open', target: target.id, until });
    }
  }

  /** The call is over (answer read, stream ended, or failed before its body). */
  finished(target: RoutingTarget): void {
    const health = this.#state.health(target.id);
    if (health.inFlight > 0) health.inFlight -= 1;
  }

  spendTokens(target: RoutingTarget, tokens: number): void {
    this.#budgets.spendTokens(target.key, tokens, this.#now());
  }

  /** Keeps the conversation on the target that answered it, while its prompt cache can be warm. */
  keep(session: string, target: RoutingTarget, ttlMs: number): void {
    this.#state.pin(session, target.id, ttlMs);
  }

  countAffinityHit(target: RoutingTarget): void {
    this.#state.health(target.id).affinityHits += 1;
  }

  health(id: string): TargetHealth {
    return this.#state.health(id);
  }

  now(): number {
    return this.#now();
  }
}

/**
 * One request's walk over its model's targets: the pinned one first while usable, then the
 * strategy's choice among those not yet tried, best priority first.
 */
export class RoutePlan {
  readonly model: CatalogModel;
  readonly session: string | undefined;
  readonly #router: Router;
  readonly #pinned: string | undefined;
  readonly tried: RoutingTarget[] = [];
  /** Probes this request's calls claimed (rare: a map only when there is one). */
  #claims: Map<RoutingTarget, ProbeClaim> | undefined;

  constructor(
    router: Router,
    model: CatalogModel,
    session: string | undefined,
    pinned: string | undefined,
  ) {
    this.#router = router;
    this.model = model;
    this.session = session;
    this.#pinned = pinned;
  }

  /** The next target to call, already counted as taken; undefined when none is usable. */
  next(): RoutingTarget | undefined {
    const router = this.#router;
    const now = router.now();
    let target: RoutingTarget | undefined;
    if (this.#pinned !== undefined && this.tried.length === 0) {
      const pinned = this.model.targets.find((candidate) => candidate.id === this.#pinned);
      if (pinned !== undefined && router.usable(pinned, now)) {
        target = pinned;
        router.countAffinityHit(pinned);
      }
    }
    target ??= router.choose(this.model, this.tried, now);
    if (target === undefined) return undefined;
    this.tried.push(target);
    const claim = router.take(target, now);
    if (claim !== undefined) (this.#claims ??= new Map()).set(target, claim);
    return target;
  }

  /**
   * The call to `target` ended without the upstream's word on it (the client went away, or the
   * gateway failed): a probe it held is given back.
   */
  abandon(target: RoutingTarget): void {
    const claim = this.#claims?.get(target);
    if (claim === undefined) return;
    this.#claims?.delete(target);
    this.#router.releaseProbe(target, claim);
  }

  /** Skips a target without calling it (its deployment cannot carry the request). */
  skip(target: RoutingTarget): void {
    this.tried.push(target);
  }

  blocked(): Blocked | undefined {
    return this.#router.blocked(this.model, this.tried, this.#router.now());
  }
}
