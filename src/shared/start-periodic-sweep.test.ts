import { afterEach, describe, expect, it, vi } from 'vitest';

import { startPeriodicSweep } from './start-periodic-sweep.ts';

describe('startPeriodicSweep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps on every beat, never two at once, and keeps going after a failure', async () => {
    vi.useFakeTimers();
    let finish: (() => void) | undefined;
    const errors: unknown[] = [];
    let calls = 0;
    const sweep = startPeriodicSweep({
      intervalMs: 1_000,
      sweep: () => {
        calls += 1;
        if (calls === 2) return Promise.reject(new Error('store down'));
        return new Promise<void>((resolve) => (finish = resolve));
      },
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(1);
    // Still running: the next beats are skipped.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(calls).toBe(1);
    finish?.();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    expect(errors).toEqual([new Error('store down')]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(3);
    sweep.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toBe(3);
  });
});
