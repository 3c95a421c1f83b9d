/**
 * Runs `sweep` every `intervalMs` without keeping the process alive. A sweep still running when
 * the next is due is skipped, never doubled; its failure goes to `onError` and the next beat
 * tries again.
 */
export function startPeriodicSweep(options: {
  intervalMs: number;
  sweep(): Promise<unknown>;
  onError(error: unknown): void;
}): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    options
      .sweep()
      .catch(options.onError)
      .finally(() => {
        running = false;
      });
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
