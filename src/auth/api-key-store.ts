import type { Permission, TokenInterface } from './permissions.ts';

/** A client token as stored: never the token itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** Hex SHA-256 of the whole token. */
  hash: string;
  /** The first characters of the token, safe to show an operator (`sy_Ab3x…`). */
  displayPrefix: string;
  permissions: Permission[];
  interface: TokenInterface;
  /** Public model ids this token may use; `null` means every model. */
  allowedModels: string[] | null;
  /** Epoch milliseconds, or `null` for no expiry. */
  expiresAt: number | null;
  disabledAt: number | null;
  createdAt: number;
}

export interface ApiKeyStore {
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** Marks the key disabled; false when no such key exists. Disabling twice keeps the first time. */
  disableApiKey(id: string, at: number): Promise<boolean>;
}
