import type { DashboardSessionStore } from './dashboard-session-store.ts';
import { hashDashboardSecret, newDashboardSecret } from './dashboard-secrets.ts';

/** How long a sign-in link may be used (docs/decisions/0168). */
export const signInLinkLifetimeMs = 15 * 60_000;

export interface SignInLink {
  url: string;
  expiresAt: number;
}

/**
 * A one-time link that signs a browser in as the account. The secret travels in the fragment,
 * which a browser never sends, so it reaches no server, proxy log or Referer header
 * (docs/decisions/0168); the store keeps only its SHA-256.
 */
export async function createSignInLink(
  sessions: DashboardSessionStore,
  options: { accountId: string; baseUrl: string; now: number },
): Promise<SignInLink> {
  const code = newDashboardSecret();
  const expiresAt = options.now + signInLinkLifetimeMs;
  await sessions.createSignInLink({
    codeHash: hashDashboardSecret(code),
    accountId: options.accountId,
    createdAt: options.now,
    expiresAt,
  });
  return { url: `${options.baseUrl}/dashboard/sign-in#code=${code}`, expiresAt };
}
