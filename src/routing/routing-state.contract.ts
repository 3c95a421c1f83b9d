import { afterEach, describe, expect, it } from 'vitest';
import type { RoutingState } from './routing-state.ts';
import { readiness } from './target-health.ts';

export interface RoutingStateUnderTest {
  state: RoutingState;
  cleanup(): Promise<void>;
}

/**
 * What every `RoutingState` adapter must do, seen from one process (routing-state.ts). Pins are
 * timed on the real clock: an adapter may keep them where no test clock reaches (Redis expiry).
 */
export function describeRoutingStateContract(
  name: string,
  create: (options: { maxPins: number }) => Promise<RoutingStateUnderTest>,
): void {
  describe(`${name} (RoutingState contract)`, () => {
    const opened: RoutingStateUnderTest[] = [];
    const open = async (maxPins = 100) => {
      const underTest = await create({ maxPins });
      opened.push(underTest);
      return underTest.state;
    };
    afterEach(async () => {
      while (opened.length > 0) {
        const underTest = opened.pop();
        await underTest?.state.close();
        await underTest?.cleanup();
      }
    });

    it('creates a healthy view on first use and hands back the same one, so counters stick', async () => {
      const state = await open();
      const health = state.health('p/m#k1');
      expect(readiness(health, Date.now())).toBe('ready');
      expect(health).toMatchObject({ circuit: 'closed', disabled: undefined, failures: 0 });
      health.inFlight += 2;
      expect(state.health('p/m#k1').inFlight).toBe(2);
      expect([...state.entries()].map(([id]) => id)).toEqual(['p/m#k1']);
    });

    it('applies what is published: a wait only ever extends, and its end clears it', async () => {
      const state = await open();
      const now = Date.now();
      state.publish({ kind: 'cooldown', target: 'p/m#k1', until: now + 30_000 });
      state.publish({ kind: 'cooldown', target: 'p/m#k1', until: now + 1_000 });
      expect(state.health('p/m#k1')).toMatchObject({ coolUntil: now + 30_000, cooldowns: 1 });
      expect(readiness(state.health('p/m#k1'), now)).toBe('out');

      state.publish({ kind: 'circuit-open', target: 'p/m#k2', until: now + 5_000 });
      expect(state.health('p/m#k2')).toMatchObject({ circuit: 'open', circuitUntil: now + 5_000 });
      expect(readiness(state.health('p/m#k2'), now + 5_000)).toBe('probe');
      state.publish({ kind: 'circuit-closed', target: 'p/m#k2' });
      expect(state.health('p/m#k2')).toMatchObject({ circuit: 'closed', circuitOpens: 1 });

      state.publish({ kind: 'cooldown', target: 'p#k3', until: now + 9_000 });
      state.publish({ kind: 'disabled', target: 'p#k3', reason: 'quota', until: now + 300_000 });
      expect(state.health('p#k3')).toMatchObject({
        disabled: 'quota',
        disabledUntil: now + 300_000,
      });
      state.publish({ kind: 'enabled', target: 'p#k3' });
      expect(state.health('p#k3')).toMatchObject({ disabled: undefined, coolUntil: 0 });
      expect(readiness(state.health('p#k3'), now)).toBe('ready');
    });

    it('keeps a pin for its TTL, renewed by each turn, then lets it go', async () => {
      const state = await open();
      state.pin('session-a', 'p/m#k1', 300);
      state.pin('session-b', 'p/m#k2', 60_000);
      expect(await state.pinned('session-a')).toBe('p/m#k1');
      expect(await state.pinned('session-b')).toBe('p/m#k2');
      expect(await state.pinned('session-c')).toBeUndefined();

      // The conversation moved to another target: the pin follows it.
      state.pin('session-b', 'p/m#k1', 60_000);
      expect(await state.pinned('session-b')).toBe('p/m#k1');

      await sleep(400);
      expect(await state.pinned('session-a')).toBeUndefined();
      expect(await state.pinned('session-b')).toBe('p/m#k1');
    });

    it('bounds its own table, dropping the session used longest ago', async () => {
      const state = await open(2);
      state.pin('first', 'p/m#k1', 60_000);
      state.pin('second', 'p/m#k1', 60_000);
      // Read, so `second` is now the one used longest ago.
      expect(await state.pinned('first')).toBe('p/m#k1');
      state.pin('third', 'p/m#k2', 60_000);
      expect(state.pinnedCount).toBe(2);
      expect(await state.pinned('first')).toBe('p/m#k1');
      expect(await state.pinned('third')).toBe('p/m#k2');
      expect(state.pinnedCount).toBeLessThanOrEqual(2);
    });

    it('forgets every view and every pin on reset', async () => {
      const state = await open();
      const now = Date.now();
      state.publish({ kind: 'cooldown', target: 'p/m#k1', until: now + 30_000 });
      state.publish({ kind: 'disabled', target: 'p#k1', reason: 'refused', until: now + 30_000 });
      state.pin('session-a', 'p/m#k1', 60_000);
      await settle();

      state.forget();
      expect([...state.entries()]).toEqual([]);
      expect(state.pinnedCount).toBe(0);
      expect(readiness(state.health('p/m#k1'), now)).toBe('ready');
      expect(state.health('p#k1').disabled).toBeUndefined();
      expect(await state.pinned('session-a')).toBeUndefined();
    });
  });
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Lets writes sent in the background land before the test goes on. */
function settle(): Promise<void> {
  return sleep(50);
}
