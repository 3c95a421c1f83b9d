import { describe, expect, it } from 'vitest';

import type { UsageRecord } from '../../src/generation/usage-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

export function describeUsageStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`UsageStore contract (${name})`, () => {
    const store = useContractStore(openStore);

    function usageRecord(accountId: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
      return {
        requestId: uniqueId('request'),
        accountId,
        apiKeyId: uniqueId('key'),
        surface: 'messages',
        model: 'contract-model',
        deployment: 'contract-provider/upstream-model',
        inputTokens: 1_200,
        inputCacheReadTokens: 800,
        inputCacheWrite5mTokens: 100,
        inputCacheWrite1hTokens: 50,
        outputTokens: 340,
        reasoningTokens: 120,
        cost: 4_567,
        shortfall: 12,
        latencyMs: 1_830,
        outcome: 'ok',
        status: 200,
        createdAt: Date.now(),
        ...overrides,
      };
    }

    it('lists recorded usage newest first, within the limit, with every field', async () => {
      const account = await createTestAccount(store());
      const other = await createTestAccount(store());
      const oldest = usageRecord(account.id, { createdAt: 1_000 });
      const middle = usageRecord(account.id, {
        createdAt: 2_000,
        deployment: null,
        outcome: 'upstream_error',
        status: 502,
        cost: 0,
        outputTokens: 0,
        reasoningTokens: 0,
      });
      const newest = usageRecord(account.id, { createdAt: 3_000, surface: 'chat' });
      // Written out of time order: the listing follows createdAt, not insertion.
      for (const record of [middle, usageRecord(other.id), newest, oldest]) {
        await store().usage.recordUsage(record);
      }

      expect(await store().usage.listUsage(account.id, 10)).toEqual([newest, middle, oldest]);
      expect(await store().usage.listUsage(account.id, 2)).toEqual([newest, middle]);
    });

    it('lists nothing for an account without usage', async () => {
      const account = await createTestAccount(store());
      expect(await store().usage.listUsage(account.id, 10)).toEqual([]);
    });
  });
}
