import type { Asset, AssetSource } from './asset.ts';

/** A new upload, recorded before its bytes are written so a crash leaves a trace to sweep. */
export interface PendingAsset {
  id: string;
  accountId: string;
  blobKey: string;
  name: string;
  contentType: string;
  source: AssetSource;
  folder: string;
  protected: boolean;
  /** Epoch ms after which an upload that never committed counts as abandoned. */
  uploadDeadline: number;
}

export interface CommittedUpload {
  id: string;
  accountId: string;
  size: number;
  sha256: string;
  createdAt: number;
  deleteAt: number;
  /** The uploadDeadline the row was created with: a row the sweeper claimed no longer matches. */
  uploadDeadline: number;
  /** The account's quota when it has none of its own. */
  defaultQuotaBytes: number;
  /** A reservation of this account to draw the bytes from first; only the rest meets the quota. */
  reservationId?: string;
}

/**
 * Space counted against the quota for files not made yet (an image job's results), so the
 * upstream is called only when they will fit. Invisible; drawn on by the commits that name it,
 * released by its owner, and freed by the sweeper after `until` if its owner crashed.
 */
export interface SpaceReservation {
  /** An id of the asset form (`asset_` + hex): it shares the files' table and sweeper. */
  id: string;
  accountId: string;
  /** Never written; the sweeper's blob delete of a missing blob is harmless. */
  blobKey: string;
  bytes: number;
  until: number;
  defaultQuotaBytes: number;
}

/** `gone`: the sweeper took the upload as abandoned before it committed. */
export type CommitOutcome = 'committed' | 'over_quota' | 'gone';

export interface AccountStorage {
  usedBytes: number;
  fileCount: number;
  /** null: the configured default applies. */
  quotaBytes: number | null;
  retentionDays: number | null;
}

/** Where a list page starts: the last asset of the previous page (newest first). */
export interface AssetCursor {
  createdAt: number;
  id: string;
}

/** A file whose blob is to be removed, claimed by one deleter at a time. */
export interface DeletionClaim {
  id: string;
  accountId: string;
  blobKey: string;
  size: number;
}

export type BeginDeletionOutcome =
  | { outcome: 'claimed'; claim: DeletionClaim }
  | { outcome: 'protected' }
  | { outcome: 'not_found' };

export interface SweepClaimOptions {
  now: number;
  /** Until when the claimed rows belong to this sweeper (a crashed sweeper's claims lapse). */
  claimUntil: number;
  limit: number;
  /** Only this account's files (a policy change that deletes old files at once). */
  accountId?: string;
}

/**
 * Metadata of stored files and per-account usage (docs/architecture.md). Files move through
 * `pending` (bytes being written, invisible), `ready` (visible) and `deleting` (invisible, bytes
 * still counted until the blob is gone, docs/api.md), and every move is a conditional update, so
 * racing processes never double count or double delete.
 */
export interface AssetStore {
  createPendingAsset(asset: PendingAsset): Promise<void>;
  /** Makes the upload visible and counts its bytes, atomically against the account's quota. */
  commitUpload(upload: CommittedUpload): Promise<CommitOutcome>;
  /** Counts the reservation's bytes against the quota at once; false when they do not fit. */
  reserveSpace(reservation: SpaceReservation): Promise<boolean>;
  /** What is left of this account's reservation; 0 when it was drawn, released or swept. */
  getReservedBytes(accountId: string, id: string): Promise<number>;
  /** Frees what is left of the reservation; harmless when it is already gone. */
  releaseReservation(accountId: string, id: string): Promise<void>;
  /** Forgets a pending upload whose blob was removed (a failed or refused write). */
  removePendingAsset(id: string): Promise<void>;
  /** A visible file of this account; another account's id is as unknown as a missing one. */
  getAsset(accountId: string, id: string): Promise<Asset | undefined>;
  /** Visible files, newest first (created time, then id), strictly after the cursor. */
  listAssets(accountId: string, options: { after?: AssetCursor; limit: number }): Promise<Asset[]>;
  getAccountStorage(accountId: string): Promise<AccountStorage>;
  /**
   * The bytes counted against every account's quota together (stored files, files waiting for
   * their deletion, reservations): one sum over one row per account, read when metrics are scraped.
   */
  totalUsedBytes(): Promise<number>;
  /**
   * Sets the retention policy. With `applyToExisting`, every visible file's deletion time moves
   * earlier to its creation time plus the new retention when that is sooner (never later).
   */
  setRetentionDays(
    accountId: string,
    retentionDays: number,
    options: { applyToExisting: boolean },
  ): Promise<void>;
  /** The account's own quota; null returns it to the configured default. */
  setQuotaBytes(accountId: string, quotaBytes: number | null): Promise<void>;
  /** Sets or clears `protected`; false when the account has no such visible file. */
  setProtected(accountId: string, id: string, value: boolean): Promise<boolean>;
  /**
   * Hides a visible, unprotected file and claims its blob deletion until `claimUntil`. A file
   * already waiting for a retried deletion whose claim lapsed is claimed again.
   */
  beginDeletion(
    accountId: string,
    id: string,
    options: { now: number; claimUntil: number },
  ): Promise<BeginDeletionOutcome>;
  /** The blob could not be removed: the deletion waits for the sweeper from `retryAt` on. */
  postponeDeletion(id: string, retryAt: number): Promise<void>;
  /** The blob is gone: forgets the file and frees its bytes. Returns the bytes freed. */
  finishDeletion(id: string): Promise<number>;
  /**
   * Claims a bounded batch for the sweeper: expired unprotected files, deletions due a retry and
   * uploads abandoned past their deadline. Rows another process holds are skipped, never waited for.
   */
  claimSweepBatch(options: SweepClaimOptions): Promise<DeletionClaim[]>;
}
