import { describe, expect, it } from 'vitest';

import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

export function describeAccountStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`AccountStore contract (${name})`, () => {
    const store = useContractStore(openStore);

    it('creates an account and reads it back', async () => {
      const administrator = await createTestAccount(store(), {
        name: 'Operations',
        isAdmin: true,
        createdAt: 1_700_000_000_123,
      });
      const member = await createTestAccount(store(), { isAdmin: false });

      expect(await store().accounts.getAccount(administrator.id)).toEqual(administrator);
      expect(await store().accounts.getAccount(member.id)).toEqual(member);
    });

    it('returns undefined for an unknown account', async () => {
      expect(await store().accounts.getAccount(uniqueId('account'))).toBeUndefined();
    });

    it('refuses a second account with the same id', async () => {
      const account = await createTestAccount(store());
      await expect(
        store().accounts.createAccount({ ...account, name: 'Impostor' }),
      ).rejects.toThrow();
      expect(await store().accounts.getAccount(account.id)).toEqual(account);
    });

    it('finds an account by its name and refuses a second account of that name', async () => {
      const account = await createTestAccount(store());
      expect(await store().accounts.findAccountByName(account.name)).toEqual(account);
      expect(await store().accounts.findAccountByName(uniqueId('nobody'))).toBeUndefined();
      await expect(createTestAccount(store(), { name: account.name })).rejects.toThrow();
    });

    it('lists every account', async () => {
      const first = await createTestAccount(store());
      const second = await createTestAccount(store(), { isAdmin: true });
      const accounts = await store().accounts.listAccounts();
      expect(accounts).toContainEqual(first);
      expect(accounts).toContainEqual(second);
      expect(new Set(accounts.map((account) => account.id)).size).toBe(accounts.length);
    });
  });
}
