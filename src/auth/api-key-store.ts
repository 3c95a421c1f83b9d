import type { TokenBudget } from '../billing/token-budget.ts';
import type { LimitSet } from '../config/config-schema.ts';
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
  /** The most this token may be charged per period; `null` for no budget of its own. */
  budget: TokenBudget | null;
  /** Rate limits in place of the configured `limits.token`; `null` for those. */
  limits: LimitSet | null;
}

/**
 * What may change on a token after it was made; an absent field stays as it is. `disabledAt:
 * null` enables a disabled token again; disabling goes through `disableApiKey`.
 */
export type ApiKeyChanges = Partial<
  Pick<ApiKeyRecord, 'name' | 'allowedModels' | 'expiresAt' | 'budget' | 'limits'>
> & { disabledAt?: null };

export interface ApiKeyStore {
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** Marks the key disabled; false when no such key exists. Disabling twice keeps the first time. */
  disableApiKey(id: string, at: number): Promise<boolean>;
  /** Applies the changes; the record as it is afterwards, or undefined when no such key exists. */
  updateApiKey(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | undefined>;
  /**
   * Gives the key a new secret (its hash and display prefix), keeping every setting; the old
   * secret stops matching. False when no such key exists.
   */
  replaceApiKeySecret(id: string, hash: string, displayPrefix: string): Promise<boolean>;
  /** Removes the key; its usage records keep its id. False when no such key exists. */
  deleteApiKey(id: string): Promise<boolean>;
}
