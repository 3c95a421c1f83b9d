import type { Kysely, Selectable, Updateable } from 'kysely';

import type { ApiKeyChanges, ApiKeyRecord, ApiKeyStore } from '../../auth/api-key-store.ts';
import { isPermission, tokenInterfaces } from '../../auth/permissions.ts';
import type { Permission, TokenInterface } from '../../auth/permissions.ts';
import { isBudgetPeriod, type TokenBudget } from '../../billing/token-budget.ts';
import type { LimitSet } from '../../config/config-schema.ts';
import type { ApiKeysTable, Database } from './kysely-database.ts';

export class KyselyApiKeyStore implements ApiKeyStore {
  readonly #database: Kysely<Database>;

  constructor(database: Kysely<Database>) {
    this.#database = database;
  }

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    await this.#database
      .insertInto('api_keys')
      .values({
        id: record.id,
        account_id: record.accountId,
        name: record.name,
        hash: record.hash,
        display_prefix: record.displayPrefix,
        permissions: JSON.stringify(record.permissions),
        interface: record.interface,
        allowed_models: record.allowedModels === null ? null : JSON.stringify(record.allowedModels),
        expires_at: record.expiresAt,
        disabled_at: record.disabledAt,
        created_at: record.createdAt,
        ...encodeChanges({ budget: record.budget, limits: record.limits }),
      })
      .execute();
  }

  /** On every request's path: one lookup through the unique index on `hash`. */
  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#database
      .selectFrom('api_keys')
      .selectAll()
      .where('hash', '=', hash)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeApiKey(row);
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#database
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeApiKey(row);
  }

  async listApiKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    let query = this.#database.selectFrom('api_keys').selectAll();
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(decodeApiKey);
  }

  async disableApiKey(id: string, at: number): Promise<boolean> {
    // coalesce keeps the first disable time, and the row still counts as found on a repeat.
    const result = await this.#database
      .updateTable('api_keys')
      .set((expression) => ({
        disabled_at: expression.fn.coalesce('disabled_at', expression.val(at)),
      }))
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async updateApiKey(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | undefined> {
    const values = encodeChanges(changes);
    if (Object.keys(values).length > 0) {
      await this.#database.updateTable('api_keys').set(values).where('id', '=', id).execute();
    }
    return this.getApiKey(id);
  }

  async replaceApiKeySecret(id: string, hash: string, displayPrefix: string): Promise<boolean> {
    const result = await this.#database
      .updateTable('api_keys')
      .set({ hash, display_prefix: displayPrefix })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async deleteApiKey(id: string): Promise<boolean> {
    const result = await this.#database
      .deleteFrom('api_keys')
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The columns of the fields that are present; `null` clears a setting. */
function encodeChanges(changes: ApiKeyChanges): Updateable<ApiKeysTable> {
  const values: Updateable<ApiKeysTable> = {};
  if (changes.name !== undefined) values.name = changes.name;
  if (changes.allowedModels !== undefined) {
    values.allowed_models =
      changes.allowedModels === null ? null : JSON.stringify(changes.allowedModels);
  }
  if (changes.expiresAt !== undefined) values.expires_at = changes.expiresAt;
  if (changes.disabledAt === null) values.disabled_at = null;
  if (changes.budget !== undefined) {
    values.budget_micro = changes.budget?.amount ?? null;
    values.budget_period = changes.budget?.period ?? null;
  }
  if (changes.limits !== undefined) {
    values.limits = changes.limits === null ? null : JSON.stringify(changes.limits);
  }
  return values;
}

function decodeApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    hash: row.hash,
    displayPrefix: row.display_prefix,
    permissions: decodeStringArray(row.permissions, row.id, 'permissions').map((label) => {
      if (!isPermission(label)) throw corruptRow(row.id, `unknown permission ${label}`);
      return label satisfies Permission;
    }),
    interface: decodeTokenInterface(row.interface, row.id),
    allowedModels:
      row.allowed_models === null
        ? null
        : decodeStringArray(row.allowed_models, row.id, 'allowed_models'),
    expiresAt: row.expires_at,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    budget: decodeBudget(row),
    limits: row.limits === null ? null : decodeLimits(row.limits, row.id),
  };
}

function decodeBudget(row: Selectable<ApiKeysTable>): TokenBudget | null {
  if (row.budget_micro === null || row.budget_period === null) return null;
  if (!isBudgetPeriod(row.budget_period)) {
    throw corruptRow(row.id, `unknown budget period ${row.budget_period}`);
  }
  return { amount: row.budget_micro, period: row.budget_period };
}

const limitFields = ['requestsPerMinute', 'tokensPerMinute', 'concurrentRequests'] as const;

function decodeLimits(text: string, id: string): LimitSet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corruptRow(id, 'limits is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw corruptRow(id, 'limits is not an object');
  }
  const limits: LimitSet = {};
  for (const [field, limit] of Object.entries(value)) {
    const known = limitFields.find((candidate) => candidate === field);
    if (known === undefined || !Number.isSafeInteger(limit) || (limit as number) < 1) {
      throw corruptRow(id, `limits.${field} is not a positive integer limit`);
    }
    limits[known] = limit as number;
  }
  return limits;
}

/** The column was written by insertApiKey; anything else means the row was edited by hand. */
function decodeStringArray(text: string, id: string, column: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corruptRow(id, `${column} is not JSON`);
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw corruptRow(id, `${column} is not an array of strings`);
  }
  return value;
}

function decodeTokenInterface(value: string, id: string): TokenInterface {
  const known = tokenInterfaces.find((candidate) => candidate === value);
  if (known === undefined) throw corruptRow(id, `unknown interface ${value}`);
  return known;
}

function corruptRow(id: string, problem: string): Error {
  return new Error(`api_keys row ${id} is corrupt: ${problem}`);
}
