import type { IdempotencyStore } from './idempotency-store.ts';
import { startPeriodicSweep } from '../shared/start-periodic-sweep.ts';

export interface IdempotencySweepOptions {
  /** Rows per delete: keeps each statement's lock short. */
  batchSize: number;
  /** Batches per sweep: a large backlog is worked off over several sweeps, not in one burst. */
  maxBatches: number;
}

const defaults: IdempotencySweepOptions = { batchSize: 500, maxBatches: 20 };

/** Deletes entries expired at `now` in bounded batches; returns how many. */
export async function sweepExpiredIdempotencyEntries(
  store: IdempotencyStore,
  now: number,
  options: IdempotencySweepOptions = defaults,
): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < options.maxBatches; batch += 1) {
    const deleted = await store.deleteExpired(now, options.batchSize);
    total += deleted;
    if (deleted < options.batchSize) break;
  }
  return total;
}

/**
 * Runs the sweep every `intervalMs` with the injected clock. Claims already ignore expired rows;
 * the sweep only gives the space back. A sweep still running when the next is due is skipped.
 */
export function startIdempotencySweep(options: {
  store: IdempotencyStore;
  intervalMs: number;
  now(): number;
  onError(error: unknown): void;
}): { stop(): void } {
  return startPeriodicSweep({
    intervalMs: options.intervalMs,
    sweep: () => sweepExpiredIdempotencyEntries(options.store, options.now()),
    onError: options.onError,
  });
}
