/**
 * The store holds a migration this build does not know: a newer build upgraded it. This build
 * must not run on it; the message names the migration.
 */
export class StoreNewerThanBuildError extends Error {
  override name = 'StoreNewerThanBuildError';
}
