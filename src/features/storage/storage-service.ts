import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { ApiError } from '../../canonical/generation-error.ts';
import {
  DEPENDENCY_RETRY_AFTER_SECONDS,
  isDependencyUnavailable,
} from '../../shared/is-dependency-unavailable.ts';
import { blobKeyForAsset, createAssetId, type Asset, type AssetSource } from './asset.ts';
import { decodeAssetCursor, encodeAssetCursor } from './asset-cursor.ts';
import { isPossibleRecordId } from './is-possible-record-id.ts';
import type { AssetStore, DeletionClaim } from './asset-store.ts';
import type { BlobStore, ByteRange } from './blob-store.ts';
import { MeasureUpload, UploadOverQuota } from './measure-upload.ts';

const dayMs = 86_400_000;
/** How long one deleter owns a claimed file before a crashed deleter's claim lapses. */
const claimMs = 10 * 60_000;

export interface StorageSettings {
  quotaBytes: number;
  retentionDays: number;
  maxRetentionDays: number;
  uploadTimeoutMs: number;
  deleteRetryMs: number;
  sweepBatchSize: number;
}

export interface StoreAssetInput {
  accountId: string;
  name: string;
  contentType: string;
  source: AssetSource;
  /** A reservation (`reserveSpace`) the bytes are drawn from before they meet the quota. */
  reservationId?: string;
  /** Virtual folder; defaults to the source's. */
  folder?: string;
  body: Readable;
  /** Set by a job that still uses the file (docs/api.md); cleared with `setProtected`. */
  protected?: boolean;
  /** Retention counts from request preparation (docs/api.md); defaults to now. */
  preparedAt?: number;
}

export interface StorageSummary {
  quotaBytes: number;
  usedBytes: number;
  fileCount: number;
  retentionDays: number;
  maxRetentionDays: number;
}

export interface StoragePolicy {
  retentionDays: number;
  maxRetentionDays: number;
}

export interface AssetPage {
  data: Asset[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `pending`: hidden and queued for retry, its bytes still counted until the blob is gone. */
export type DeletionResult = { outcome: 'deleted'; freedBytes: number } | { outcome: 'pending' };

export interface SweepResult {
  deleted: number;
  pending: number;
}

const defaultFolders: Record<AssetSource, string> = {
  image_result: 'images/results',
  image_input: 'images/inputs',
  transcription_upload: 'audio/uploads',
};

function checkText(value: string, field: string, maximum: number): void {
  // Control characters would corrupt a Content-Disposition header or a listing.
  const hasControl = [...value].some((character) => {
    const code = character.charCodeAt(0);
    return code < 0x20 || code === 0x7f;
  });
  if (value.length === 0 || value.length > maximum || hasControl) {
    throw new RangeError(`${field} must be 1 to ${maximum} printable characters`);
  }
}

/**
 * An unreachable blob store is an outage, not a fault (docs/decisions/0021): 503 `not_ready`
 * with a `retry-after`, also when a feature (an image job) meets it far from the HTTP layer.
 */
function asOutage(error: unknown): unknown {
  if (error instanceof ApiError || !isDependencyUnavailable(error)) return error;
  return new ApiError('not_ready', 'The file store is unreachable; retry with a delay.', {
    retryAfter: DEPENDENCY_RETRY_AFTER_SECONDS,
  });
}

/**
 * Stored files (docs/decisions/0050): the one service that the storage routes, the sweeper and the
 * features producing files (images, transcription) call. Bytes go to the BlobStore first and
 * become visible only when the metadata commit counts them against the quota.
 */
export class StorageService {
  readonly #assets: AssetStore;
  readonly #blobs: BlobStore;
  readonly #now: () => number;
  readonly #settings: StorageSettings;

  constructor(options: {
    assets: AssetStore;
    blobs: BlobStore;
    now: () => number;
    settings: StorageSettings;
  }) {
    this.#assets = options.assets;
    this.#blobs = options.blobs;
    this.#now = options.now;
    this.#settings = options.settings;
  }

  /**
   * Streams a new file in. Refuses with `storage_quota_exceeded` (413) once the bytes pass what
   * the account has left; the final check and count are atomic in the AssetStore, so two
   * concurrent writes cannot both take the last free bytes.
   */
  async storeAsset(input: StoreAssetInput): Promise<Asset> {
    const folder = input.folder ?? defaultFolders[input.source];
    checkText(input.name, 'name', 255);
    checkText(folder, 'folder', 255);
    if (!/^[\w.+-]+\/[\w.+-]+(?:\s*;.{0,200})?$/.test(input.contentType)) {
      throw new RangeError(`content type ${JSON.stringify(input.contentType)} is not a media type`);
    }
    const startedAt = this.#now();
    const storage = await this.#assets.getAccountStorage(input.accountId);
    const quotaBytes = storage.quotaBytes ?? this.#settings.quotaBytes;
    const reserved =
      input.reservationId === undefined
        ? 0
        : await this.#assets.getReservedBytes(input.accountId, input.reservationId);
    const freeBytes = quotaBytes - storage.usedBytes + reserved;
    if (freeBytes <= 0) throw new ApiError('storage_quota_exceeded');
    const id = createAssetId();
    const blobKey = blobKeyForAsset(id);
    const uploadDeadline = startedAt + this.#settings.uploadTimeoutMs;
    await this.#assets.createPendingAsset({
      id,
      accountId: input.accountId,
      blobKey,
      name: input.name,
      contentType: input.contentType,
      source: input.source,
      folder,
      protected: input.protected ?? false,
      uploadDeadline,
    });
    const measure = new MeasureUpload(freeBytes);
    try {
      // Both sides settle before the outcome is known: a refused write answers only once the
      // blob store has removed what it began to write.
      const [read, write] = await Promise.allSettled([
        pipeline(input.body, measure),
        this.#blobs.put(blobKey, measure, { contentType: input.contentType }),
      ]);
      if (read.status === 'rejected') throw read.reason;
      if (write.status === 'rejected') throw write.reason;
    } catch (error) {
      await this.#discardUpload(id, blobKey);
      if (error instanceof UploadOverQuota) throw new ApiError('storage_quota_exceeded');
      throw asOutage(error);
    }
    // Retention counts from request preparation, so the file's time is that one.
    const createdAt = input.preparedAt ?? startedAt;
    const retentionDays = storage.retentionDays ?? this.#settings.retentionDays;
    const outcome = await this.#assets.commitUpload({
      id,
      accountId: input.accountId,
      size: measure.size,
      sha256: measure.digest(),
      createdAt,
      deleteAt: createdAt + retentionDays * dayMs,
      uploadDeadline,
      defaultQuotaBytes: this.#settings.quotaBytes,
      ...(input.reservationId === undefined ? {} : { reservationId: input.reservationId }),
    });
    if (outcome !== 'committed') {
      await this.#discardUpload(id, blobKey);
      if (outcome === 'over_quota') throw new ApiError('storage_quota_exceeded');
      throw new Error(`The upload of ${id} outlived the upload timeout and was abandoned`);
    }
    const asset = await this.#assets.getAsset(input.accountId, id);
    if (asset === undefined) throw new Error(`The committed asset ${id} is not readable`);
    return asset;
  }

  /**
   * Counts `bytes` against the account's quota before the files exist (413
   * `storage_quota_exceeded` when they do not fit), so work that produces files is started only
   * when they will fit. Uploads naming the reservation draw on it; `releaseReservation` frees the
   * rest, and the sweeper frees it after `until` should its owner never do so.
   */
  async reserveSpace(
    accountId: string,
    reservation: { id: string; bytes: number; until: number },
  ): Promise<void> {
    const reserved = await this.#assets.reserveSpace({
      ...reservation,
      accountId,
      blobKey: blobKeyForAsset(reservation.id),
      defaultQuotaBytes: this.#settings.quotaBytes,
    });
    if (reserved) return;
    // The quota may have room left, just not this much: say how much was needed.
    const left = await this.describeStorage(accountId);
    throw new ApiError(
      'storage_quota_exceeded',
      `This request needs up to ${reservation.bytes} bytes of storage for its results and the account has ${Math.max(0, left.quotaBytes - left.usedBytes)} left. Delete files (POST /v1/storage/cleanup) to free space.`,
    );
  }

  releaseReservation(accountId: string, id: string): Promise<void> {
    return this.#assets.releaseReservation(accountId, id);
  }

  /** Marks a file as used by an active job, or releases it; false for an unknown file. */
  async setProtected(accountId: string, id: string, value: boolean): Promise<boolean> {
    if (!isPossibleRecordId(id)) return false;
    return this.#assets.setProtected(accountId, id, value);
  }

  async getAsset(accountId: string, id: string): Promise<Asset | undefined> {
    if (!isPossibleRecordId(id)) return undefined;
    return this.#assets.getAsset(accountId, id);
  }

  async listAssets(
    accountId: string,
    query: { after?: string; limit: number },
  ): Promise<AssetPage> {
    const after = query.after === undefined ? undefined : decodeAssetCursor(query.after);
    if (query.after !== undefined && after === undefined) {
      throw new ApiError('invalid_request', 'after is not a cursor from next_cursor.', {
        details: { param: 'after' },
      });
    }
    const rows = await this.#assets.listAssets(accountId, {
      ...(after === undefined ? {} : { after }),
      limit: query.limit + 1,
    });
    const data = rows.slice(0, query.limit);
    const last = data.at(-1);
    const hasMore = rows.length > query.limit;
    return {
      data,
      hasMore,
      nextCursor:
        hasMore && last !== undefined
          ? encodeAssetCursor({ createdAt: last.createdAt, id: last.id })
          : null,
    };
  }

  async describeStorage(accountId: string): Promise<StorageSummary> {
    const storage = await this.#assets.getAccountStorage(accountId);
    return {
      quotaBytes: storage.quotaBytes ?? this.#settings.quotaBytes,
      usedBytes: storage.usedBytes,
      fileCount: storage.fileCount,
      retentionDays: storage.retentionDays ?? this.#settings.retentionDays,
      maxRetentionDays: this.#settings.maxRetentionDays,
    };
  }

  async getPolicy(accountId: string): Promise<StoragePolicy> {
    const storage = await this.#assets.getAccountStorage(accountId);
    return {
      retentionDays: storage.retentionDays ?? this.#settings.retentionDays,
      maxRetentionDays: this.#settings.maxRetentionDays,
    };
  }

  /**
   * docs/api.md: new files get the new retention; with `applyToExisting` earlier deletion times
   * follow, and files already past them are deleted at once (up to one sweep batch; the
   * sweeper takes the rest).
   */
  async updatePolicy(
    accountId: string,
    change: { retentionDays: number; applyToExisting: boolean },
  ): Promise<StoragePolicy> {
    if (change.retentionDays > this.#settings.maxRetentionDays) {
      throw new ApiError(
        'invalid_request',
        `retention_days must be at most max_retention_days (${this.#settings.maxRetentionDays}).`,
        { details: { param: 'retention_days' } },
      );
    }
    await this.#assets.setRetentionDays(accountId, change.retentionDays, {
      applyToExisting: change.applyToExisting,
    });
    if (change.applyToExisting) await this.sweepOnce({ accountId });
    return this.getPolicy(accountId);
  }

  /**
   * The bytes (or the range of them) of a file just looked up; undefined when it was deleted
   * meanwhile, so a download racing a delete answers 404 rather than 500.
   */
  async openContent(asset: Asset, range?: ByteRange): Promise<Readable | undefined> {
    let body: Readable | undefined;
    try {
      body = await this.#blobs.get(blobKeyForAsset(asset.id), range);
    } catch (error) {
      throw asOutage(error);
    }
    if (body !== undefined) return body;
    if ((await this.#assets.getAsset(asset.accountId, asset.id)) === undefined) return undefined;
    throw new Error(`The blob of visible asset ${asset.id} is missing`);
  }

  /** DELETE: 404 exactly as unknown for another account's id, 409 while protected (docs/api.md). */
  async deleteAsset(accountId: string, id: string): Promise<DeletionResult> {
    if (!isPossibleRecordId(id)) throw new ApiError('not_found', 'No such file.');
    const now = this.#now();
    const begun = await this.#assets.beginDeletion(accountId, id, {
      now,
      claimUntil: now + claimMs,
    });
    if (begun.outcome === 'not_found') throw new ApiError('not_found', 'No such file.');
    if (begun.outcome === 'protected') throw new ApiError('asset_protected');
    return this.#removeClaimed(begun.claim);
  }

  /**
   * One sweep: bounded batches of expired files, deletions due a retry and
   * abandoned uploads, at most `maxBatches` of them. Claims make it safe in several processes.
   */
  async sweepOnce(options: { accountId?: string; maxBatches?: number } = {}): Promise<SweepResult> {
    const result: SweepResult = { deleted: 0, pending: 0 };
    const limit = this.#settings.sweepBatchSize;
    for (let batch = 0; batch < (options.maxBatches ?? 10); batch += 1) {
      const now = this.#now();
      const claims = await this.#assets.claimSweepBatch({
        now,
        claimUntil: now + claimMs,
        limit,
        ...(options.accountId === undefined ? {} : { accountId: options.accountId }),
      });
      for (const claim of claims) {
        const removed = await this.#removeClaimed(claim);
        if (removed.outcome === 'deleted') result.deleted += 1;
        else result.pending += 1;
      }
      if (claims.length < limit) break;
    }
    return result;
  }

  async #removeClaimed(claim: DeletionClaim): Promise<DeletionResult> {
    try {
      await this.#blobs.delete(claim.blobKey);
    } catch {
      // Queued for retry; the bytes stay counted until the blob is really gone.
      await this.#assets.postponeDeletion(claim.id, this.#now() + this.#settings.deleteRetryMs);
      return { outcome: 'pending' };
    }
    return { outcome: 'deleted', freedBytes: await this.#assets.finishDeletion(claim.id) };
  }

  /** Best effort: whatever stays behind is an abandoned upload the sweeper removes later. */
  async #discardUpload(id: string, blobKey: string): Promise<void> {
    try {
      await this.#blobs.delete(blobKey);
      await this.#assets.removePendingAsset(id);
    } catch {
      // The pending row keeps the blob key; the sweeper retries after the upload deadline.
    }
  }
}
