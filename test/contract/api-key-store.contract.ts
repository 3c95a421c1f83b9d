import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import type { ApiKeyRecord } from '../../src/auth/api-key-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

export function describeApiKeyStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`ApiKeyStore contract (${name})`, () => {
    const store = useContractStore(openStore);

    function apiKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
      const token = uniqueId('sy');
      return {
        id: uniqueId('key'),
        accountId,
        name: 'contract test key',
        hash: createHash('sha256').update(token).digest('hex'),
        displayPrefix: token.slice(0, 7),
        permissions: ['model:read', 'inference:create'],
        interface: 'credits',
        allowedModels: null,
        expiresAt: null,
        disabledAt: null,
        createdAt: Date.now(),
        budget: null,
        limits: null,
        ...overrides,
      };
    }

    it('finds an inserted key by its hash and by its id, every field intact', async () => {
      const account = await createTestAccount(store());
      const open = apiKey(account.id);
      const restricted = apiKey(account.id, {
        permissions: ['mcp:call'],
        interface: 'connected',
        allowedModels: ['model-a', 'model-b'],
        expiresAt: Date.now() + 86_400_000,
        disabledAt: Date.now() - 1_000,
      });
      await store().apiKeys.insertApiKey(open);
      await store().apiKeys.insertApiKey(restricted);

      expect(await store().apiKeys.findApiKeyByHash(open.hash)).toEqual(open);
      expect(await store().apiKeys.findApiKeyByHash(restricted.hash)).toEqual(restricted);
      expect(await store().apiKeys.getApiKey(restricted.id)).toEqual(restricted);
    });

    it('returns undefined for an unknown hash or id', async () => {
      const unknownHash = createHash('sha256').update(uniqueId('unknown')).digest('hex');
      expect(await store().apiKeys.findApiKeyByHash(unknownHash)).toBeUndefined();
      expect(await store().apiKeys.getApiKey(uniqueId('key'))).toBeUndefined();
    });

    it('refuses a second key with the same hash', async () => {
      const account = await createTestAccount(store());
      const first = apiKey(account.id);
      await store().apiKeys.insertApiKey(first);
      await expect(
        store().apiKeys.insertApiKey(apiKey(account.id, { hash: first.hash })),
      ).rejects.toThrow();
      expect(await store().apiKeys.findApiKeyByHash(first.hash)).toEqual(first);
    });

    it('lists the keys of one account, or of every account', async () => {
      const owner = await createTestAccount(store());
      const other = await createTestAccount(store());
      const ownerKeys = [apiKey(owner.id), apiKey(owner.id)];
      const otherKey = apiKey(other.id);
      for (const record of [...ownerKeys, otherKey]) await store().apiKeys.insertApiKey(record);

      const byId = (left: ApiKeyRecord, right: ApiKeyRecord) => left.id.localeCompare(right.id);
      expect((await store().apiKeys.listApiKeys(owner.id)).sort(byId)).toEqual(
        [...ownerKeys].sort(byId),
      );
      expect(await store().apiKeys.listApiKeys(uniqueId('account'))).toEqual([]);
      const everyKey = await store().apiKeys.listApiKeys();
      for (const record of [...ownerKeys, otherKey]) expect(everyKey).toContainEqual(record);
    });

    it('disables a key once and keeps the first time', async () => {
      const account = await createTestAccount(store());
      const record = apiKey(account.id);
      await store().apiKeys.insertApiKey(record);

      expect(await store().apiKeys.disableApiKey(record.id, 1_700_000_000_000)).toBe(true);
      expect(await store().apiKeys.disableApiKey(record.id, 1_800_000_000_000)).toBe(true);
      expect(await store().apiKeys.findApiKeyByHash(record.hash)).toEqual({
        ...record,
        disabledAt: 1_700_000_000_000,
      });
    });

    it('changes the settings given and keeps the others', async () => {
      const account = await createTestAccount(store());
      const record = apiKey(account.id, { allowedModels: ['model-a'], expiresAt: 2_000_000 });
      await store().apiKeys.insertApiKey(record);

      const budgeted = {
        ...record,
        name: 'renamed',
        budget: { amount: 5_000_000, period: 'weekly' as const },
        limits: { requestsPerMinute: 7, concurrentRequests: 2 },
      };
      expect(
        await store().apiKeys.updateApiKey(record.id, {
          name: 'renamed',
          budget: budgeted.budget,
          limits: budgeted.limits,
        }),
      ).toEqual(budgeted);
      expect(await store().apiKeys.findApiKeyByHash(record.hash)).toEqual(budgeted);

      const cleared = { ...budgeted, budget: null, allowedModels: null, expiresAt: null };
      expect(
        await store().apiKeys.updateApiKey(record.id, {
          budget: null,
          allowedModels: null,
          expiresAt: null,
        }),
      ).toEqual(cleared);
      expect(await store().apiKeys.updateApiKey(record.id, {})).toEqual(cleared);
      expect(await store().apiKeys.disableApiKey(record.id, 1_000)).toBe(true);
      expect((await store().apiKeys.getApiKey(record.id))?.disabledAt).toBe(1_000);
      expect(await store().apiKeys.updateApiKey(record.id, { disabledAt: null })).toEqual(cleared);
      expect(await store().apiKeys.updateApiKey(uniqueId('key'), { name: 'x' })).toBeUndefined();
    });

    it('replaces a secret, after which only the new hash finds the key', async () => {
      const account = await createTestAccount(store());
      const record = apiKey(account.id, { budget: { amount: 10, period: 'daily' } });
      await store().apiKeys.insertApiKey(record);
      const newHash = createHash('sha256').update(uniqueId('sy')).digest('hex');

      expect(await store().apiKeys.replaceApiKeySecret(record.id, newHash, 'sy_new…')).toBe(true);
      expect(await store().apiKeys.findApiKeyByHash(record.hash)).toBeUndefined();
      expect(await store().apiKeys.findApiKeyByHash(newHash)).toEqual({
        ...record,
        hash: newHash,
        displayPrefix: 'sy_new…',
      });
      expect(await store().apiKeys.replaceApiKeySecret(uniqueId('key'), newHash, 'x')).toBe(false);
    });

    it('deletes a key once', async () => {
      const account = await createTestAccount(store());
      const record = apiKey(account.id);
      await store().apiKeys.insertApiKey(record);
      expect(await store().apiKeys.deleteApiKey(record.id)).toBe(true);
      expect(await store().apiKeys.getApiKey(record.id)).toBeUndefined();
      expect(await store().apiKeys.findApiKeyByHash(record.hash)).toBeUndefined();
      expect(await store().apiKeys.deleteApiKey(record.id)).toBe(false);
    });

    it('reports false when disabling an unknown key', async () => {
      expect(await store().apiKeys.disableApiKey(uniqueId('key'), Date.now())).toBe(false);
    });
  });
}
