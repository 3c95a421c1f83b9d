import type { ResponseStore } from './response-store.ts';
import { startPeriodicSweep } from '../shared/start-periodic-sweep.ts';

const batchSize = 500;

/** Deletes every response expired at `now`, in bounded batches; returns how many. */
export async function sweepExpiredResponses(store: ResponseStore, now: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await store.deleteExpiredResponses(now, batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/**
 * Runs the sweep every `intervalMs` (stored items are cleaned every five minutes).
 * Lookups already ignore expired rows; the sweep only gives the space back. A sweep still
 * running when the next is due is not doubled.
 */
export function startResponseRetentionSweep(options: {
  store: ResponseStore;
  intervalMs: number;
  now(): number;
  onError(error: unknown): void;
}): { stop(): void } {
  return startPeriodicSweep({
    intervalMs: options.intervalMs,
    sweep: () => sweepExpiredResponses(options.store, options.now()),
    onError: options.onError,
  });
}
