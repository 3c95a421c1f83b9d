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
        firstTokenMs: 420,
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

    it('sums usage per group over [from, to), ordered by the group keys', async () => {
      const account = await createTestAccount(store());
      const other = await createTestAccount(store());
      const day = 86_400_000;
      const start = 20 * day;
      const records = [
        usageRecord(account.id, { apiKeyId: 'key_a', model: 'm1', createdAt: start + 5 }),
        usageRecord(account.id, { apiKeyId: 'key_a', model: 'm2', createdAt: start + 3_600_000 }),
        usageRecord(account.id, {
          apiKeyId: 'key_b',
          model: 'm1',
          deployment: null,
          cost: 0,
          createdAt: start + day + 1,
        }),
        // Outside the period, and another account's: in no group.
        usageRecord(account.id, { apiKeyId: 'key_a', createdAt: start + 2 * day }),
        usageRecord(account.id, { apiKeyId: 'key_a', createdAt: start - 1 }),
        usageRecord(other.id, { apiKeyId: 'key_c', createdAt: start + 10 }),
      ];
      for (const record of records) await store().usage.recordUsage(record);
      const filter = { accountId: account.id, from: start, to: start + 2 * day };

      const [totals] = await store().usage.summarizeUsage(filter, []);
      expect(totals).toEqual({
        requests: 3,
        inputTokens: 3_600,
        cachedInputTokens: 2_400,
        cacheWriteTokens: 450,
        outputTokens: 1_020,
        reasoningTokens: 360,
        cost: 2 * 4_567,
      });

      const byDayAndModel = await store().usage.summarizeUsage(filter, ['day', 'model']);
      expect(
        byDayAndModel.map((group) => [group.period, group.model, group.requests, group.cost]),
      ).toEqual([
        [start, 'm1', 1, 4_567],
        [start, 'm2', 1, 4_567],
        [start + day, 'm1', 1, 0],
      ]);

      const byHour = await store().usage.summarizeUsage(filter, ['hour']);
      expect(byHour.map((group) => group.period)).toEqual([start, start + 3_600_000, start + day]);

      const byToken = await store().usage.summarizeUsage({ ...filter, model: 'm1' }, [
        'token',
        'deployment',
      ]);
      expect(byToken.map((group) => [group.apiKeyId, group.deployment, group.requests])).toEqual([
        ['key_a', 'contract-provider/upstream-model', 1],
        ['key_b', null, 1],
      ]);

      const everyAccount = await store().usage.summarizeUsage(
        { from: start, to: start + 2 * day },
        ['token'],
      );
      expect(everyAccount.map((group) => group.apiKeyId)).toEqual(
        expect.arrayContaining(['key_a', 'key_b', 'key_c']),
      );
    });

    it('sums any period, on the hour or not, as the records themselves add up', async () => {
      const account = await createTestAccount(store());
      const hour = 3_600_000;
      const base = 400 * 86_400_000;
      const records = Array.from({ length: 40 }, (_, index) =>
        usageRecord(account.id, {
          apiKeyId: index % 3 === 0 ? 'key_x' : 'key_y',
          deployment: index % 4 === 0 ? null : 'provider/upstream',
          cost: 100 + index,
          inputTokens: index,
          createdAt: base + index * 397_000,
        }),
      );
      for (const record of records) await store().usage.recordUsage(record);
      const windows = [
        [base, base + 5 * hour],
        [base + 1_234, base + 3 * hour - 1],
        [base + hour + 17, base + hour + 600_000],
        [base + 2 * hour, base + 4 * hour + 5],
      ];
      for (const [from, to] of windows as Array<[number, number]>) {
        const inside = records.filter(
          (record) => record.createdAt >= from && record.createdAt < to,
        );
        const [totals] = await store().usage.summarizeUsage(
          { accountId: account.id, from, to },
          [],
        );
        expect(totals, `${from}–${to}`).toMatchObject({
          requests: inside.length,
          inputTokens: inside.reduce((sum, record) => sum + record.inputTokens, 0),
          cost: inside.reduce((sum, record) => sum + record.cost, 0),
        });
        const byHour = await store().usage.summarizeUsage({ accountId: account.id, from, to }, [
          'hour',
          'deployment',
        ]);
        const expected = new Map<string, number>();
        for (const record of inside) {
          const key = `${record.createdAt - (record.createdAt % hour)} ${record.deployment}`;
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        expect(
          byHour.map((group) => [`${group.period} ${group.deployment}`, group.requests]),
        ).toEqual(
          [...expected].sort(([left], [right]) => {
            const [leftHour, leftDeployment] = left.split(' ');
            const [rightHour, rightDeployment] = right.split(' ');
            if (leftHour !== rightHour) return Number(leftHour) - Number(rightHour);
            return leftDeployment === 'null' ? 1 : rightDeployment === 'null' ? -1 : 0;
          }),
        );
        const spent = inside
          .filter((record) => record.apiKeyId === 'key_x')
          .reduce((sum, record) => sum + record.cost, 0);
        const ownX = await store().usage.summarizeUsage(
          { accountId: account.id, apiKeyId: 'key_x', from, to },
          [],
        );
        expect(ownX[0]?.cost).toBe(spent);
      }
    });

    it('pages the request log newest first by cursor, with filters', async () => {
      const account = await createTestAccount(store());
      const at = 50_000_000;
      // Three records in the same millisecond: the cursor still orders and splits them.
      const records = [
        usageRecord(account.id, { createdAt: at, status: 200 }),
        usageRecord(account.id, { createdAt: at, status: 402, outcome: 'refused' }),
        usageRecord(account.id, { createdAt: at, status: 200 }),
        usageRecord(account.id, { createdAt: at + 1, status: 200, model: 'other' }),
        usageRecord(account.id, { createdAt: at + 2, status: 200 }),
      ];
      for (const record of records) await store().usage.recordUsage(record);
      const filter = { accountId: account.id, from: at, to: at + 3 };

      const seen: string[] = [];
      let page = await store().usage.listRequests({ ...filter, limit: 2 });
      for (;;) {
        seen.push(...page.records.map((record) => record.requestId));
        if (page.next === undefined) break;
        page = await store().usage.listRequests({ ...filter, limit: 2, after: page.next });
      }
      expect(seen).toEqual([
        records[4]?.requestId,
        records[3]?.requestId,
        records[2]?.requestId,
        records[1]?.requestId,
        records[0]?.requestId,
      ]);

      const refused = await store().usage.listRequests({ ...filter, status: 402, limit: 10 });
      expect(refused).toEqual({ records: [records[1]] });
      const other = await store().usage.listRequests({ ...filter, model: 'other', limit: 10 });
      expect(other.records.map((record) => record.requestId)).toEqual([records[3]?.requestId]);
    });

    it("sums a token's charges since a time", async () => {
      const account = await createTestAccount(store());
      const apiKeyId = uniqueId('key');
      for (const [cost, createdAt] of [
        [100, 999],
        [250, 1_000],
        [30, 5_000],
      ] as const) {
        await store().usage.recordUsage(usageRecord(account.id, { apiKeyId, cost, createdAt }));
      }
      expect(await store().usage.spentByToken(apiKeyId, 1_000)).toBe(280);
      expect(await store().usage.spentByToken(apiKeyId, 999, 5_000)).toBe(350);
      expect(await store().usage.spentByToken(uniqueId('key'), 0)).toBe(0);
    });
  });
}
