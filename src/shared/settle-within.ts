/**
 * What `promise` resolves to if it does within `ms`, else undefined; a rejection is undefined
 * too. For a nice-to-have read that must never hold up the work that waits for it.
 */
export function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}
