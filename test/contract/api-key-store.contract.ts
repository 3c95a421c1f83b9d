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

    it('reports false when disabling an unknown key', async () => {
      expect(await store().apiKeys.disableApiKey(uniqueId('key'), Date.now())).toBe(false);
    });
  });
}
