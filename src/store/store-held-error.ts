/**
 * A live gateway process serves the embedded store, so this process must not do what it was
 * about to: serve it as well, or upgrade its schema under that gateway. The message names the
 * process that holds it.
 */
export class StoreHeldError extends Error {
  override name = 'StoreHeldError';
}
