import type { Kysely, Selectable } from 'kysely';

import type { Account, AccountStore } from '../../auth/account-store.ts';
import type { AccountsTable, Database } from './kysely-database.ts';

export class KyselyAccountStore implements AccountStore {
  readonly #database: Kysely<Database>;

  constructor(database: Kysely<Database>) {
    this.#database = database;
  }

  async createAccount(account: Account): Promise<void> {
    await this.#database
      .insertInto('accounts')
      .values({
        id: account.id,
        name: account.name,
        is_admin: account.isAdmin ? 1 : 0,
        created_at: account.createdAt,
      })
      .execute();
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = await this.#database
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeAccount(row);
  }

  async findAccountByName(name: string): Promise<Account | undefined> {
    const row = await this.#database
      .selectFrom('accounts')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeAccount(row);
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.#database
      .selectFrom('accounts')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(decodeAccount);
  }
}

function decodeAccount(row: Selectable<AccountsTable>): Account {
  return { id: row.id, name: row.name, isAdmin: row.is_admin === 1, createdAt: row.created_at };
}
