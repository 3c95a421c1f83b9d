import { sql } from 'kysely';
import type { Kysely, Selectable, Transaction } from 'kysely';

import type { Asset, AssetSource } from '../../features/storage/asset.ts';
import type {
  AccountStorage,
  AssetCursor,
  AssetStore,
  BeginDeletionOutcome,
  CommitOutcome,
  CommittedUpload,
  DeletionClaim,
  PendingAsset,
  SpaceReservation,
  SweepClaimOptions,
} from '../../features/storage/asset-store.ts';
import { claimAssetSweepBatch } from './claim-asset-sweep-batch.ts';
import { toDeletionClaim, type AssetsTable, type StorageDatabase } from './kysely-asset-tables.ts';
import type { Database, StoreDialect } from './kysely-database.ts';

const dayMs = 86_400_000;

function toAsset(row: Selectable<AssetsTable>): Asset {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    size: row.size,
    contentType: row.content_type,
    sha256: row.sha256,
    source: row.source as AssetSource,
    folder: row.folder,
    createdAt: row.created_at,
    deleteAt: row.delete_at,
    protected: row.protected === 1,
  };
}

/**
 * AssetStore on SQLite and PostgreSQL. Quota and counters change only through conditional
 * updates of the account's `storage_accounts` row inside the transaction that moves the file,
 * so concurrent writers queue on that row and re-check against committed values. SQLite
 * transactions here begin with a write, as in kysely-credit-ledger.ts.
 */
export class KyselyAssetStore implements AssetStore {
  readonly #database: Kysely<StorageDatabase>;
  readonly #dialect: StoreDialect;

  constructor(database: Kysely<Database>, dialect: StoreDialect) {
    this.#database = database.withTables<Omit<StorageDatabase, keyof Database>>();
    this.#dialect = dialect;
  }

  async createPendingAsset(asset: PendingAsset): Promise<void> {
    await this.#database
      .insertInto('assets')
      .values({
        id: asset.id,
        account_id: asset.accountId,
        status: 'pending',
        blob_key: asset.blobKey,
        name: asset.name,
        size: 0,
        content_type: asset.contentType,
        sha256: '',
        source: asset.source,
        folder: asset.folder,
        created_at: 0,
        delete_at: 0,
        protected: asset.protected ? 1 : 0,
        claimed_until: asset.uploadDeadline,
      })
      .execute();
  }

  async commitUpload(upload: CommittedUpload): Promise<CommitOutcome> {
    return this.#database
      .transaction()
      .execute(async (transaction) => {
        await this.#ensureAccountRow(transaction, upload.accountId);
        // Bytes already counted by the reservation are moved to the file, not counted again.
        const reserved =
          upload.reservationId === undefined
            ? 0
            : await this.#reservedBytes(transaction, upload.accountId, upload.reservationId);
        const drawn = Math.min(reserved, upload.size);
        const added = upload.size - drawn;
        // The check and the count are one statement, so two writers cannot both
        // take the last free bytes.
        const counted = await transaction
          .updateTable('storage_accounts')
          .set((expression) => ({
            used_bytes: expression('used_bytes', '+', added),
            file_count: expression('file_count', '+', 1),
          }))
          .where('account_id', '=', upload.accountId)
          .$if(added > 0, (query) =>
            query.where(
              sql<boolean>`used_bytes + ${added} <= coalesce(quota_bytes, ${upload.defaultQuotaBytes})`,
            ),
          )
          .executeTakeFirst();
        if (counted.numUpdatedRows !== 1n) return 'over_quota';
        if (drawn > 0) {
          await transaction
            .updateTable('assets')
            .set({ size: reserved - drawn })
            .where('id', '=', upload.reservationId as string)
            .where('status', '=', 'pending')
            .execute();
        }
        const shown = await transaction
          .updateTable('assets')
          .set({
            status: 'ready',
            size: upload.size,
            sha256: upload.sha256,
            created_at: upload.createdAt,
            delete_at: upload.deleteAt,
            claimed_until: null,
          })
          .where('id', '=', upload.id)
          .where('account_id', '=', upload.accountId)
          .where('status', '=', 'pending')
          .where('claimed_until', '=', upload.uploadDeadline)
          .executeTakeFirst();
        if (shown.numUpdatedRows !== 1n) throw new UploadTakenBySweeper();
        return 'committed';
      })
      .catch((error: unknown) => {
        if (error instanceof UploadTakenBySweeper) return 'gone' as const;
        throw error;
      });
  }

  async reserveSpace(reservation: SpaceReservation): Promise<boolean> {
    return this.#database.transaction().execute(async (transaction) => {
      await this.#ensureAccountRow(transaction, reservation.accountId);
      const counted = await transaction
        .updateTable('storage_accounts')
        .set((expression) => ({ used_bytes: expression('used_bytes', '+', reservation.bytes) }))
        .where('account_id', '=', reservation.accountId)
        .where(
          sql<boolean>`used_bytes + ${reservation.bytes} <= coalesce(quota_bytes, ${reservation.defaultQuotaBytes})`,
        )
        .executeTakeFirst();
      if (counted.numUpdatedRows !== 1n) return false;
      // A pending row past its deadline is what the sweeper frees: a crashed owner's bytes too.
      await transaction
        .insertInto('assets')
        .values({
          id: reservation.id,
          account_id: reservation.accountId,
          status: 'pending',
          blob_key: reservation.blobKey,
          name: 'reserved space',
          size: reservation.bytes,
          content_type: 'application/octet-stream',
          sha256: '',
          source: 'image_result',
          folder: 'reserved',
          created_at: 0,
          delete_at: 0,
          protected: 0,
          claimed_until: reservation.until,
        })
        .execute();
      return true;
    });
  }

  async getReservedBytes(accountId: string, id: string): Promise<number> {
    const row = await this.#database
      .selectFrom('assets')
      .select('size')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.size ?? 0;
  }

  async releaseReservation(accountId: string, id: string): Promise<void> {
    await this.#database.transaction().execute(async (transaction) => {
      const removed = await transaction
        .deleteFrom('assets')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('status', '=', 'pending')
        .returning('size')
        .executeTakeFirst();
      if (removed === undefined || removed.size === 0) return;
      await transaction
        .updateTable('storage_accounts')
        .set((expression) => ({ used_bytes: expression('used_bytes', '-', removed.size) }))
        .where('account_id', '=', accountId)
        .execute();
    });
  }

  async removePendingAsset(id: string): Promise<void> {
    await this.#database
      .deleteFrom('assets')
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }

  async getAsset(accountId: string, id: string): Promise<Asset | undefined> {
    const row = await this.#database
      .selectFrom('assets')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'ready')
      .executeTakeFirst();
    return row === undefined ? undefined : toAsset(row);
  }

  async listAssets(
    accountId: string,
    options: { after?: AssetCursor; limit: number },
  ): Promise<Asset[]> {
    const { after } = options;
    const rows = await this.#database
      .selectFrom('assets')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'ready')
      .$if(after !== undefined, (query) =>
        query.where((expression) =>
          expression.or([
            expression('created_at', '<', (after as AssetCursor).createdAt),
            expression.and([
              expression('created_at', '=', (after as AssetCursor).createdAt),
              expression('id', '<', (after as AssetCursor).id),
            ]),
          ]),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .execute();
    return rows.map(toAsset);
  }

  async getAccountStorage(accountId: string): Promise<AccountStorage> {
    const row = await this.#database
      .selectFrom('storage_accounts')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return {
      usedBytes: row?.used_bytes ?? 0,
      fileCount: row?.file_count ?? 0,
      quotaBytes: row?.quota_bytes ?? null,
      retentionDays: row?.retention_days ?? null,
    };
  }

  async totalUsedBytes(): Promise<number> {
    const row = await this.#database
      .selectFrom('storage_accounts')
      .select((expression) => expression.fn.sum<number | string | null>('used_bytes').as('total'))
      .executeTakeFirst();
    // PostgreSQL sums a bigint column as numeric, which its driver reads as text.
    return Number(row?.total ?? 0);
  }

  async setRetentionDays(
    accountId: string,
    retentionDays: number,
    options: { applyToExisting: boolean },
  ): Promise<void> {
    await this.#database.transaction().execute(async (transaction) => {
      await this.#ensureAccountRow(transaction, accountId);
      await transaction
        .updateTable('storage_accounts')
        .set({ retention_days: retentionDays })
        .where('account_id', '=', accountId)
        .execute();
      if (!options.applyToExisting) return;
      // docs/api.md: existing dates only ever move earlier.
      const retentionMs = retentionDays * dayMs;
      const shortened = sql<number>`created_at + ${this.#wide(retentionMs)}`;
      await transaction
        .updateTable('assets')
        .set({ delete_at: shortened })
        .where('account_id', '=', accountId)
        .where('status', '=', 'ready')
        .where('delete_at', '>', shortened)
        .execute();
    });
  }

  async setQuotaBytes(accountId: string, quotaBytes: number | null): Promise<void> {
    await this.#database.transaction().execute(async (transaction) => {
      await this.#ensureAccountRow(transaction, accountId);
      await transaction
        .updateTable('storage_accounts')
        .set({ quota_bytes: quotaBytes })
        .where('account_id', '=', accountId)
        .execute();
    });
  }

  async setProtected(accountId: string, id: string, value: boolean): Promise<boolean> {
    const result = await this.#database
      .updateTable('assets')
      .set({ protected: value ? 1 : 0 })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', 'in', ['pending', 'ready'])
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async beginDeletion(
    accountId: string,
    id: string,
    options: { now: number; claimUntil: number },
  ): Promise<BeginDeletionOutcome> {
    const row = await this.#database
      .selectFrom('assets')
      .select(['status', 'protected', 'claimed_until'])
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined || row.status === 'pending') return { outcome: 'not_found' };
    if (row.status === 'ready' && row.protected === 1) return { outcome: 'protected' };
    if (row.status === 'deleting') {
      const reclaimed = await this.#database
        .updateTable('assets')
        .set({ claimed_until: options.claimUntil })
        .where('id', '=', id)
        .where('status', '=', 'deleting')
        .where('claimed_until', '<=', options.now)
        .returning(['id', 'account_id', 'blob_key', 'size'])
        .executeTakeFirst();
      // Another deleter holds it right now: to this caller the file is already gone.
      return reclaimed === undefined
        ? { outcome: 'not_found' }
        : { outcome: 'claimed', claim: toDeletionClaim(reclaimed) };
    }
    const hidden = await this.#database.transaction().execute(async (transaction) => {
      const moved = await transaction
        .updateTable('assets')
        .set({ status: 'deleting', claimed_until: options.claimUntil })
        .where('id', '=', id)
        .where('status', '=', 'ready')
        .where('protected', '=', 0)
        .returning(['id', 'account_id', 'blob_key', 'size'])
        .executeTakeFirst();
      if (moved === undefined) return undefined;
      await this.#uncountFiles(transaction, accountId, 1);
      return moved;
    });
    // Lost a race (protected or deleted meanwhile): answer from the row as it is now.
    if (hidden === undefined) return this.beginDeletion(accountId, id, options);
    return { outcome: 'claimed', claim: toDeletionClaim(hidden) };
  }

  async postponeDeletion(id: string, retryAt: number): Promise<void> {
    await this.#database
      .updateTable('assets')
      .set({ claimed_until: retryAt })
      .where('id', '=', id)
      .where('status', '=', 'deleting')
      .execute();
  }

  async finishDeletion(id: string): Promise<number> {
    return this.#database.transaction().execute(async (transaction) => {
      const removed = await transaction
        .deleteFrom('assets')
        .where('id', '=', id)
        .where('status', '=', 'deleting')
        .returning(['account_id', 'size'])
        .executeTakeFirst();
      if (removed === undefined) return 0;
      // docs/api.md: space counts as freed only now that the blob is gone.
      await transaction
        .updateTable('storage_accounts')
        .set((expression) => ({ used_bytes: expression('used_bytes', '-', removed.size) }))
        .where('account_id', '=', removed.account_id)
        .execute();
      return removed.size;
    });
  }

  claimSweepBatch(options: SweepClaimOptions): Promise<DeletionClaim[]> {
    return claimAssetSweepBatch(this.#database, this.#dialect, options);
  }

  /** The reservation's bytes, its row locked until the transaction ends (PostgreSQL). */
  async #reservedBytes(
    transaction: Transaction<StorageDatabase>,
    accountId: string,
    id: string,
  ): Promise<number> {
    const row = await transaction
      .selectFrom('assets')
      .select('size')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .$if(this.#dialect === 'postgres', (query) => query.forUpdate())
      .executeTakeFirst();
    return row?.size ?? 0;
  }

  async #ensureAccountRow(transaction: Transaction<StorageDatabase>, accountId: string) {
    await transaction
      .insertInto('storage_accounts')
      .values({ account_id: accountId, used_bytes: 0, file_count: 0 })
      .onConflict((conflict) => conflict.column('account_id').doNothing())
      .execute();
  }

  async #uncountFiles(
    transaction: Transaction<StorageDatabase>,
    accountId: string,
    count: number,
  ): Promise<void> {
    await transaction
      .updateTable('storage_accounts')
      .set((expression) => ({ file_count: expression('file_count', '-', count) }))
      .where('account_id', '=', accountId)
      .execute();
  }

  /** A bound integer PostgreSQL adds to a bigint column without guessing its type. */
  #wide(value: number) {
    return this.#dialect === 'postgres' ? sql`cast(${value} as bigint)` : sql`${value}`;
  }
}

/** Rolls the quota count back when the sweeper took the upload first. */
class UploadTakenBySweeper extends Error {}
