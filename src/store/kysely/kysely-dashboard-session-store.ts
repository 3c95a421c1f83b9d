import type { Kysely } from 'kysely';

import type {
  DashboardSession,
  DashboardSessionStore,
  DashboardSignInLink,
} from '../../dashboard/dashboard-session-store.ts';
import type { Database } from './kysely-database.ts';

/** The tables of migration 0015, kept beside their only user. */
interface DashboardSignInLinksTable {
  code_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

interface DashboardSessionsTable {
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

type DashboardTables = {
  dashboard_sign_in_links: DashboardSignInLinksTable;
  dashboard_sessions: DashboardSessionsTable;
};

/**
 * SQLite and PostgreSQL share this adapter. A link is used up by one conditional UPDATE …
 * RETURNING, a single atomic statement on either engine, so of two concurrent uses one wins.
 */
export class KyselyDashboardSessionStore implements DashboardSessionStore {
  readonly #database: Kysely<Database & DashboardTables>;

  constructor(database: Kysely<Database>) {
    this.#database = database.withTables<DashboardTables>();
  }

  async createSignInLink(link: DashboardSignInLink): Promise<void> {
    await this.#database
      .insertInto('dashboard_sign_in_links')
      .values({
        code_hash: link.codeHash,
        account_id: link.accountId,
        created_at: link.createdAt,
        expires_at: link.expiresAt,
        used_at: null,
      })
      .execute();
  }

  async consumeSignInLink(codeHash: string, now: number): Promise<string | undefined> {
    const used = await this.#database
      .updateTable('dashboard_sign_in_links')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    return used?.account_id;
  }

  async createSession(session: DashboardSession): Promise<void> {
    await this.#database
      .insertInto('dashboard_sessions')
      .values({
        id_hash: session.idHash,
        account_id: session.accountId,
        csrf_token: session.csrfToken,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async getSession(idHash: string, now: number): Promise<DashboardSession | undefined> {
    const row = await this.#database
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      idHash: row.id_hash,
      accountId: row.account_id,
      csrfToken: row.csrf_token,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  async deleteSession(idHash: string): Promise<boolean> {
    const result = await this.#database
      .deleteFrom('dashboard_sessions')
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteExpired(now: number): Promise<number> {
    const links = await this.#database
      .deleteFrom('dashboard_sign_in_links')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    const sessions = await this.#database
      .deleteFrom('dashboard_sessions')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(links.numDeletedRows) + Number(sessions.numDeletedRows);
  }
}
