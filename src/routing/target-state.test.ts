import { describe, expect, it } from 'vitest';
import { applyHealthEvent, createTargetHealth, type HealthEvent } from './target-health.ts';
import { targetState } from './target-state.ts';

const now = 1_000_000;

/** Omit over a union keeps only the common keys; this keeps each member's own. */
type EventOf<T> = T extends HealthEvent ? Omit<T, 'target'> : never;

function healthAfter(...events: Array<EventOf<HealthEvent>>) {
  const health = createTargetHealth();
  for (const event of events) applyHealthEvent(health, { ...event, target: 't' } as HealthEvent);
  return health;
}

describe('targetState', () => {
  it('is healthy with nothing learned, and once a cooldown has passed', () => {
    expect(targetState(createTargetHealth(), createTargetHealth(), now)).toEqual({
      state: 'healthy',
      until: undefined,
    });
    const cooled = healthAfter({ kind: 'cooldown', until: now - 1 });
    expect(targetState(cooled, createTargetHealth(), now).state).toBe('healthy');
  });

  it("names a disabled key before the target's own open circuit or cooldown, until the later wait", () => {
    const target = healthAfter(
      { kind: 'circuit-open', until: now + 5_000 },
      { kind: 'cooldown', until: now + 60_000 },
    );
    const key = healthAfter({ kind: 'disabled', reason: 'quota', until: now + 30_000 });
    expect(targetState(target, key, now)).toEqual({ state: 'disabled:quota', until: now + 60_000 });
    expect(targetState(target, createTargetHealth(), now)).toEqual({
      state: 'circuit-open',
      until: now + 60_000,
    });
  });

  it('keeps an open circuit named once its wait is over (the next call is its probe), then probing', () => {
    const target = healthAfter({ kind: 'circuit-open', until: now - 10 });
    expect(targetState(target, createTargetHealth(), now)).toEqual({
      state: 'circuit-open',
      until: now - 10,
    });
    target.probing = true;
    expect(targetState(target, createTargetHealth(), now)).toEqual({
      state: 'probing',
      until: undefined,
    });
  });

  it("cools a target whose key is cooling, and an operator's enable ends it all", () => {
    const key = healthAfter({ kind: 'cooldown', until: now + 2_000 });
    expect(targetState(createTargetHealth(), key, now)).toEqual({
      state: 'cooling',
      until: now + 2_000,
    });
    const target = healthAfter(
      { kind: 'disabled', reason: 'refused', until: now + 300_000 },
      { kind: 'cooldown', until: now + 2_000 },
    );
    applyHealthEvent(key, { kind: 'enabled', target: 'k' });
    applyHealthEvent(target, { kind: 'enabled', target: 't' });
    expect(targetState(target, key, now).state).toBe('healthy');
  });
});
