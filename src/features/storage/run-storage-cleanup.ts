import { ApiError } from '../../canonical/generation-error.ts';
import type { StorageService } from './storage-service.ts';

export type CleanupSkipReason = 'protected' | 'not_found';

export interface CleanupResult {
  dryRun: boolean;
  /** Deleted, or for a dry run: would be deleted. */
  deleted: string[];
  /** Hidden and queued for retry: the blob delete failed (202, docs/api.md). */
  pending: string[];
  skipped: Array<{ id: string; reason: CleanupSkipReason }>;
  /** Bytes whose blobs are gone (for a dry run: would be). Pending deletions free nothing yet. */
  freedBytes: number;
}

/**
 * POST /v1/storage/cleanup (docs/api.md): deletes the listed files of the account and skips the
 * protected ones. Another account's id is skipped as `not_found`, exactly like an unknown id.
 * A dry run answers the same lists from the files as they are now and changes nothing.
 */
export async function runStorageCleanup(
  service: StorageService,
  accountId: string,
  request: { assetIds: string[]; dryRun: boolean },
): Promise<CleanupResult> {
  const result: CleanupResult = {
    dryRun: request.dryRun,
    deleted: [],
    pending: [],
    skipped: [],
    freedBytes: 0,
  };
  for (const id of new Set(request.assetIds)) {
    if (request.dryRun) {
      const asset = await service.getAsset(accountId, id);
      if (asset === undefined) result.skipped.push({ id, reason: 'not_found' });
      else if (asset.protected) result.skipped.push({ id, reason: 'protected' });
      else {
        result.deleted.push(id);
        result.freedBytes += asset.size;
      }
      continue;
    }
    try {
      const removed = await service.deleteAsset(accountId, id);
      if (removed.outcome === 'pending') result.pending.push(id);
      else {
        result.deleted.push(id);
        result.freedBytes += removed.freedBytes;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'asset_protected') result.skipped.push({ id, reason: 'protected' });
      else if (error.code === 'not_found') result.skipped.push({ id, reason: 'not_found' });
      else throw error;
    }
  }
  return result;
}
