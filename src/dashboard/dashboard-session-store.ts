/**
 * A one-time sign-in link (docs/decisions/0168): only the SHA-256 of its secret is kept, so a
 * copy of the database signs nobody in.
 */
export interface DashboardSignInLink {
  /** Hex SHA-256 of the secret in the link's fragment. */
  codeHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** A signed-in browser: the cookie's value is known only as its SHA-256. */
export interface DashboardSession {
  /** Hex SHA-256 of the cookie value. */
  idHash: string;
  accountId: string;
  /** Sent back in `x-csrf-token` by every changing request of this session. */
  csrfToken: string;
  createdAt: number;
  /** Absolute end: a session is never extended. */
  expiresAt: number;
}

/**
 * Dashboard sign-in links and sessions, in the gateway's store so every process of a scaled-out
 * deployment serves the same sessions.
 */
export interface DashboardSessionStore {
  createSignInLink(link: DashboardSignInLink): Promise<void>;
  /**
   * Uses the link up: its account the first time, while unexpired; undefined for an unknown,
   * used or expired link. Atomic, so two concurrent uses of one link cannot both succeed.
   */
  consumeSignInLink(codeHash: string, now: number): Promise<string | undefined>;
  createSession(session: DashboardSession): Promise<void>;
  /** The session while it lasts; undefined once expired or deleted. */
  getSession(idHash: string, now: number): Promise<DashboardSession | undefined>;
  /** True when there was such a session. */
  deleteSession(idHash: string): Promise<boolean>;
  /** Removes links and sessions that ended by `now`; how many rows went. */
  deleteExpired(now: number): Promise<number>;
}
