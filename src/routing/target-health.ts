/**
 * The health of one routing target (or of one key, for every target using it), as this process
 * sees it. The router reads it synchronously on every decision; what other processes learn
 * arrives as `HealthEvent`s (routing-state.ts).
 */
export interface TargetHealth {
  /** Epoch ms until which the target is left out: a 429, or a rate-limit count at 0. */
  coolUntil: number;
  circuit: 'closed' | 'open';
  /** Open circuit: epoch ms from which one probe call may go. */
  circuitUntil: number;
  /** Out of rotation: the upstream refused the key (401/403) or it ran out of credit (402). */
  disabled: 'refused' | 'quota' | undefined;
  /** Disabled: epoch ms from which one probe call may go. */
  disabledUntil: number;
  /** A probe call is under way from this process (only one at a time). */
  probing: boolean;
  /** Consecutive 5xx, timeouts and connection failures seen by this process. */
  failures: number;
  /** Calls of this process still waiting for their answer's headers or body. */
  inFlight: number;
  /** Exponentially weighted time to the answer's headers, ms (-1: none yet). */
  ttfbMs: number;
  /** Counters for metrics and the admin API, since start. */
  calls: number;
  cooldowns: number;
  circuitOpens: number;
  affinityHits: number;
  failuresByClass: Record<FailureClass, number>;
}

/** How an attempt failed, as far as routing is concerned (classify-attempt.ts). */
export type FailureClass =
  'rate_limited' | 'server' | 'timeout' | 'connection' | 'refused' | 'quota' | 'context' | 'client';

/** A change of health one process learned and every process applies (docs/routing.md). */
export type HealthEvent =
  | { kind: 'cooldown'; target: string; until: number }
  | { kind: 'circuit-open'; target: string; until: number }
  | { kind: 'circuit-closed'; target: string }
  | { kind: 'disabled'; target: string; reason: 'refused' | 'quota'; until: number }
  /** A key that answered again, or the operator's enable: also ends a cooldown. */
  | { kind: 'enabled'; target: string };

export function createTargetHealth(): TargetHealth {
  return {
    coolUntil: 0,
    circuit: 'closed',
    circuitUntil: 0,
    disabled: undefined,
    disabledUntil: 0,
    probing: false,
    failures: 0,
    inFlight: 0,
    ttfbMs: -1,
    calls: 0,
    cooldowns: 0,
    circuitOpens: 0,
    affinityHits: 0,
    failuresByClass: {
      rate_limited: 0,
      server: 0,
      timeout: 0,
      connection: 0,
      refused: 0,
      quota: 0,
      context: 0,
      client: 0,
    },
  };
}

/** Applies one event; a later cooldown or opening only ever extends the wait. */
export function applyHealthEvent(health: TargetHealth, event: HealthEvent): void {
  switch (event.kind) {
    case 'cooldown':
      if (event.until > health.coolUntil) {
        health.coolUntil = event.until;
        health.cooldowns += 1;
      }
      return;
    case 'circuit-open':
      if (health.circuit === 'closed') health.circuitOpens += 1;
      health.circuit = 'open';
      health.circuitUntil = Math.max(health.circuitUntil, event.until);
      health.probing = false;
      return;
    case 'circuit-closed':
      health.circuit = 'closed';
      health.circuitUntil = 0;
      health.failures = 0;
      health.probing = false;
      return;
    case 'disabled':
      health.disabled = event.reason;
      health.disabledUntil = Math.max(health.disabledUntil, event.until);
      health.probing = false;
      return;
    case 'enabled':
      health.disabled = undefined;
      health.disabledUntil = 0;
      health.coolUntil = 0;
      health.probing = false;
      return;
  }
}

/**
 * Whether a call may go to this target now: `ready` (healthy), `probe` (the one call an open
 * circuit or a disabled key allows once its wait is over), or `out`.
 */
export function readiness(health: TargetHealth, now: number): 'ready' | 'probe' | 'out' {
  if (health.coolUntil > now) return 'out';
  if (health.disabled !== undefined) {
    return now >= health.disabledUntil && !health.probing ? 'probe' : 'out';
  }
  if (health.circuit === 'open') {
    return now >= health.circuitUntil && !health.probing ? 'probe' : 'out';
  }
  return 'ready';
}

/** When a target that is out may be tried again (epoch ms). */
export function availableAt(health: TargetHealth): number {
  let at = health.coolUntil;
  if (health.disabled !== undefined) at = Math.max(at, health.disabledUntil);
  if (health.circuit === 'open') at = Math.max(at, health.circuitUntil);
  return at;
}
