import type { StorageService, SweepResult } from './storage-service.ts';

export interface StorageSweeper {
  /** Runs one sweep now (tests, shutdown-free manual runs); shares the in-flight one. */
  runOnce(): Promise<SweepResult | undefined>;
  stop(): Promise<void>;
}

/**
 * Runs the sweep every `intervalMs` (five minutes by default). Runs never overlap in
 * one process; across processes the AssetStore's claims keep two sweepers off the same file.
 */
export function startStorageSweeper(options: {
  service: StorageService;
  intervalMs: number;
  onError: (error: unknown) => void;
}): StorageSweeper {
  let running: Promise<SweepResult | undefined> | undefined;
  const runOnce = () => {
    running ??= options.service
      .sweepOnce()
      .catch((error: unknown) => {
        options.onError(error);
        return undefined;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void runOnce(), options.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
