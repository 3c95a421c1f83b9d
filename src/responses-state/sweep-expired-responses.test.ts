import { describe, expect, it } from 'vitest';
import type { ResponseStore } from './response-store.ts';
import { sweepExpiredResponses } from './sweep-expired-responses.ts';

describe('sweepExpiredResponses', () => {
  it('deletes in batches until a batch comes back short, at one clock value', async () => {
    const expired = 1_203;
    let left = expired;
    const calls: Array<[number, number]> = [];
    const store: ResponseStore = {
      saveResponse: async () => {},
      findResponse: async () => undefined,
      findResponseChain: async () => undefined,
      findOutputItems: async () => new Map(),
      findResponseOfItem: async () => undefined,
      async deleteExpiredResponses(now, limit) {
        calls.push([now, limit]);
        const deleted = Math.min(left, limit);
        left -= deleted;
        return deleted;
      },
    };
    expect(await sweepExpiredResponses(store, 42)).toBe(expired);
    expect(calls).toEqual([
      [42, 500],
      [42, 500],
      [42, 500],
    ]);
  });
});
