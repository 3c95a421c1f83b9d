import { describe, expect, it } from 'vitest';

import type { DashboardSessionStore } from '../../src/dashboard/dashboard-session-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

const now = 1_800_000_000_000;

/** The DashboardSessionStore contract (src/dashboard/dashboard-session-store.ts) against one adapter. */
export function describeDashboardSessionStoreContract(
  name: string,
  openStore: () => Promise<Store>,
): void {
  describe(`DashboardSessionStore contract (${name})`, () => {
    const store = useContractStore(openStore);
    const sessions = (): DashboardSessionStore => store().dashboardSessions;

    async function newLink(expiresAt = now + 900_000) {
      const account = await createTestAccount(store());
      const codeHash = uniqueId('code');
      await sessions().createSignInLink({
        codeHash,
        accountId: account.id,
        createdAt: now,
        expiresAt,
      });
      return { codeHash, accountId: account.id };
    }

    async function newSession(expiresAt = now + 43_200_000) {
      const account = await createTestAccount(store());
      const session = {
        idHash: uniqueId('session'),
        accountId: account.id,
        csrfToken: uniqueId('csrf'),
        createdAt: now,
        expiresAt,
      };
      await sessions().createSession(session);
      return session;
    }

    it('uses a link up once: its account the first time, nothing after', async () => {
      const link = await newLink();
      expect(await sessions().consumeSignInLink(link.codeHash, now + 1)).toBe(link.accountId);
      expect(await sessions().consumeSignInLink(link.codeHash, now + 2)).toBeUndefined();
    });

    it('lets only one of concurrent uses of a link win', async () => {
      const link = await newLink();
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, () => sessions().consumeSignInLink(link.codeHash, now + 1)),
      );
      expect(outcomes.filter((outcome) => outcome === link.accountId)).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(7);
    });

    it('refuses an expired or unknown link', async () => {
      const link = await newLink(now + 10);
      expect(await sessions().consumeSignInLink(link.codeHash, now + 10)).toBeUndefined();
      expect(await sessions().consumeSignInLink(uniqueId('code'), now)).toBeUndefined();
    });

    it('reads a session back while it lasts, and not after', async () => {
      const session = await newSession(now + 1000);
      expect(await sessions().getSession(session.idHash, now + 999)).toEqual(session);
      expect(await sessions().getSession(session.idHash, now + 1000)).toBeUndefined();
      expect(await sessions().getSession(uniqueId('session'), now)).toBeUndefined();
    });

    it('deletes a session once', async () => {
      const session = await newSession();
      expect(await sessions().deleteSession(session.idHash)).toBe(true);
      expect(await sessions().getSession(session.idHash, now)).toBeUndefined();
      expect(await sessions().deleteSession(session.idHash)).toBe(false);
    });

    it('removes ended links and sessions and keeps the others', async () => {
      const endedLink = await newLink(now + 5);
      const liveLink = await newLink(now + 900_000);
      const ended = await newSession(now + 5);
      const live = await newSession(now + 900_000);
      expect(await sessions().deleteExpired(now + 5)).toBeGreaterThanOrEqual(2);
      // Gone, not merely refused: a clock set back cannot bring them back.
      expect(await sessions().getSession(ended.idHash, now)).toBeUndefined();
      expect(await sessions().consumeSignInLink(endedLink.codeHash, now)).toBeUndefined();
      expect(await sessions().getSession(live.idHash, now + 6)).toEqual(live);
      expect(await sessions().consumeSignInLink(liveLink.codeHash, now + 6)).toBe(
        liveLink.accountId,
      );
    });
  });
}
