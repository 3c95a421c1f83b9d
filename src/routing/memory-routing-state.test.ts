import { expect, it } from 'vitest';
import { MemoryRoutingState } from './memory-routing-state.ts';
import { describeRoutingStateContract } from './routing-state.contract.ts';

describeRoutingStateContract('MemoryRoutingState', async ({ maxPins }) => ({
  state: new MemoryRoutingState({ maxPins, now: () => Date.now() }),
  cleanup: async () => {},
}));

it('MemoryRoutingState forgets the session used longest ago once the table is full', () => {
  const state = new MemoryRoutingState({ maxPins: 2, now: () => 0 });
  state.pin('first', 'p/m#k1', 1_000);
  state.pin('second', 'p/m#k1', 1_000);
  state.pinned('first');
  state.pin('third', 'p/m#k2', 1_000);
  expect(state.pinned('second')).toBeUndefined();
  expect(state.pinned('first')).toBe('p/m#k1');
});
