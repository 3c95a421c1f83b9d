import type { DeletionClaim } from '../../features/storage/asset-store.ts';
import type { Database } from './kysely-database.ts';

/** The tables of migration 0007, kept beside their only user. */
export interface AssetsTable {
  id: string;
  account_id: string;
  status: 'pending' | 'ready' | 'deleting';
  blob_key: string;
  name: string;
  size: number;
  content_type: string;
  sha256: string;
  source: string;
  folder: string;
  created_at: number;
  delete_at: number;
  /** 0 or 1, like accounts.is_admin. */
  protected: number;
  claimed_until: number | null;
}

export interface StorageAccountsTable {
  account_id: string;
  used_bytes: number;
  file_count: number;
  quota_bytes: number | null;
  retention_days: number | null;
}

export type StorageDatabase = Database & {
  assets: AssetsTable;
  storage_accounts: StorageAccountsTable;
};

export function toDeletionClaim(
  row: Pick<AssetsTable, 'id' | 'account_id' | 'blob_key' | 'size'>,
): DeletionClaim {
  return { id: row.id, accountId: row.account_id, blobKey: row.blob_key, size: row.size };
}
