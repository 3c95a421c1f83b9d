import { availableAt, type TargetHealth } from './target-health.ts';

/** What an operator reads about a target (admin API, CLI, metrics). */
export type TargetStateName =
  'healthy' | 'cooling' | 'circuit-open' | 'probing' | 'disabled:refused' | 'disabled:quota';

export interface TargetState {
  state: TargetStateName;
  /** Epoch ms from which the target may be called again (a probe, for a circuit or a key). */
  until: number | undefined;
}

/**
 * A target's state from its own health and its key's: a probe under way first (it decides what
 * comes next), then a disabled key, an open circuit, a cooldown. A disabled key or an open circuit
 * keeps its name once its wait is over, with `until` in the past: the next call is its probe.
 */
export function targetState(target: TargetHealth, key: TargetHealth, now: number): TargetState {
  const until = Math.max(availableAt(target), availableAt(key));
  if (target.probing || key.probing) return { state: 'probing', until: undefined };
  const disabled = key.disabled ?? target.disabled;
  if (disabled !== undefined) return { state: `disabled:${disabled}`, until };
  if (target.circuit === 'open') return { state: 'circuit-open', until };
  if (target.coolUntil > now || key.coolUntil > now) return { state: 'cooling', until };
  return { state: 'healthy', until: undefined };
}
