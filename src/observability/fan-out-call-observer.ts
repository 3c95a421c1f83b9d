import type { CallObserver } from './call-observer.ts';

/**
 * One observer that tells each of `observers` in turn. Observers run inside the billing
 * session's end, before the settlement is written: a fault in one is reported through `onError`
 * and goes no further, so it never costs a settlement, the client's answer or another observer.
 */
export function fanOutCallObservers(
  observers: readonly CallObserver[],
  onError: (error: unknown) => void,
): CallObserver {
  return {
    observe(call) {
      for (const observer of observers) {
        try {
          observer.observe(call);
        } catch (error) {
          onError(error);
        }
      }
    },
  };
}
