import type { Kysely } from 'kysely';

import type { DeletionClaim, SweepClaimOptions } from '../../features/storage/asset-store.ts';
import { toDeletionClaim, type StorageDatabase } from './kysely-asset-tables.ts';
import type { StoreDialect } from './kysely-database.ts';

/**
 * The sweeper's claim (AssetStore.claimSweepBatch). Each step picks its rows in a MATERIALIZED
 * CTE: PostgreSQL may re-run an `IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` subquery and so
 * update more than n rows; a materialized pick runs once. SKIP LOCKED lets several sweepers take
 * disjoint batches without waiting on each other.
 */
export async function claimAssetSweepBatch(
  database: Kysely<StorageDatabase>,
  dialect: StoreDialect,
  options: SweepClaimOptions,
): Promise<DeletionClaim[]> {
  const { now, claimUntil, limit, accountId } = options;
  const lockSkipping = dialect === 'postgres';
  return database.transaction().execute(async (transaction) => {
    const expired = await transaction
      .with(
        (name) => name('picked').materialized(),
        (pick) =>
          pick
            .selectFrom('assets')
            .select('id')
            .where('status', '=', 'ready')
            .where('protected', '=', 0)
            .where('delete_at', '<=', now)
            .$if(accountId !== undefined, (query) =>
              query.where('account_id', '=', accountId as string),
            )
            .orderBy('delete_at')
            .limit(limit)
            .$if(lockSkipping, (query) => query.forUpdate().skipLocked()),
      )
      .updateTable('assets')
      .set({ status: 'deleting', claimed_until: claimUntil })
      .where('id', 'in', (database) => database.selectFrom('picked').select('picked.id'))
      .where('status', '=', 'ready')
      .returning(['id', 'account_id', 'blob_key', 'size'])
      .execute();
    const perAccount = new Map<string, number>();
    for (const row of expired) {
      perAccount.set(row.account_id, (perAccount.get(row.account_id) ?? 0) + 1);
    }
    for (const [owner, count] of perAccount) {
      await transaction
        .updateTable('storage_accounts')
        .set((expression) => ({ file_count: expression('file_count', '-', count) }))
        .where('account_id', '=', owner)
        .execute();
    }
    const remaining = limit - expired.length;
    if (remaining <= 0) return expired.map(toDeletionClaim);
    // Retried deletions, abandoned uploads (size still 0) and lapsed space reservations (their
    // size is what they still count, freed with the row).
    const due = await transaction
      .with(
        (name) => name('picked').materialized(),
        (pick) =>
          pick
            .selectFrom('assets')
            .select('id')
            .where('status', 'in', ['deleting', 'pending'])
            .where('claimed_until', '<=', now)
            .$if(accountId !== undefined, (query) =>
              query.where('account_id', '=', accountId as string),
            )
            .orderBy('claimed_until')
            .limit(remaining)
            .$if(lockSkipping, (query) => query.forUpdate().skipLocked()),
      )
      .updateTable('assets')
      .set({ status: 'deleting', claimed_until: claimUntil })
      .where('id', 'in', (database) => database.selectFrom('picked').select('picked.id'))
      .where('claimed_until', '<=', now)
      .returning(['id', 'account_id', 'blob_key', 'size'])
      .execute();
    return [...expired, ...due].map(toDeletionClaim);
  });
}
