import type { Kysely, Selectable } from 'kysely';

import type { ApiKeyRecord, ApiKeyStore } from '../../auth/api-key-store.ts';
import { isPermission, tokenInterfaces } from '../../auth/permissions.ts';
import type { Permission, TokenInterface } from '../../auth/permissions.ts';
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
  };
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
