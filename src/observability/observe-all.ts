import type { CallObserver } from './call-observer.ts';

/**
 * One observer telling each of `observers` in turn, the undefined ones (a backend that is not
 * configured) left out; undefined when none is left, so the pipeline does no observing at all.
 * One observer that throws does not keep the call from the next.
 */
export function observeAll(
  ...observers: readonly (CallObserver | undefined)[]
): CallObserver | undefined {
  const present = observers.filter((observer) => observer !== undefined);
  if (present.length <= 1) return present[0];
  return {
    observe(call) {
      for (const observer of present) {
        try {
          observer.observe(call);
        } catch {
          // Observing never fails a request; each observer keeps its own errors.
        }
      }
    },
  };
}
