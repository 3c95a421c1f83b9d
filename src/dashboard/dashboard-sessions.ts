import type { Account, AccountStore } from '../auth/account-store.ts';
import type { DashboardSession, DashboardSessionStore } from './dashboard-session-store.ts';
import { hashDashboardSecret, isDashboardSecret, newDashboardSecret } from './dashboard-secrets.ts';

/** A session's absolute lifetime (docs/decisions/0168): it is never extended. */
export const dashboardSessionLifetimeMs = 12 * 60 * 60_000;

/** A signed-in browser: its session and the account it acts as. */
export interface SignedIn {
  session: DashboardSession;
  account: Account;
}

/**
 * Sign-in, session lookup and sign-out of the dashboard (docs/decisions/0168). The cookie value
 * and the sign-in code are secrets known to the store only by their SHA-256.
 */
export class DashboardSessions {
  readonly #sessions: DashboardSessionStore;
  readonly #accounts: AccountStore;
  readonly #now: () => number;

  constructor(options: {
    sessions: DashboardSessionStore;
    accounts: AccountStore;
    now: () => number;
  }) {
    this.#sessions = options.sessions;
    this.#accounts = options.accounts;
    this.#now = options.now;
  }

  /**
   * Uses a sign-in code up and opens a session: the cookie value (returned here only) and the
   * session; undefined for an unknown, used or expired code.
   */
  async signIn(code: unknown): Promise<(SignedIn & { cookieValue: string }) | undefined> {
    if (!isDashboardSecret(code)) return undefined;
    const now = this.#now();
    const accountId = await this.#sessions.consumeSignInLink(hashDashboardSecret(code), now);
    if (accountId === undefined) return undefined;
    const account = await this.#accounts.getAccount(accountId);
    if (account === undefined) return undefined;
    // Sign-ins are rare: sweeping ended links and sessions here keeps the tables small without
    // a timer in every process.
    await this.#sessions.deleteExpired(now);
    const cookieValue = newDashboardSecret();
    const session: DashboardSession = {
      idHash: hashDashboardSecret(cookieValue),
      accountId,
      csrfToken: newDashboardSecret(),
      createdAt: now,
      expiresAt: now + dashboardSessionLifetimeMs,
    };
    await this.#sessions.createSession(session);
    return { cookieValue, session, account };
  }

  /** The session of a cookie value and its account, while both exist and the session lasts. */
  async find(cookieValue: string | undefined): Promise<SignedIn | undefined> {
    if (!isDashboardSecret(cookieValue)) return undefined;
    const session = await this.#sessions.getSession(hashDashboardSecret(cookieValue), this.#now());
    if (session === undefined) return undefined;
    const account = await this.#accounts.getAccount(session.accountId);
    return account === undefined ? undefined : { session, account };
  }

  async signOut(session: DashboardSession): Promise<void> {
    await this.#sessions.deleteSession(session.idHash);
  }
}
