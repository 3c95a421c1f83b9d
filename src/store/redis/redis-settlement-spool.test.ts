import { randomUUID } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import type { CreditLedger, Settlement, SettlementResult } from '../../billing/credit-ledger.ts';
import { SettlementOutbox } from '../../billing/settlement-outbox.ts';
import { connectTestRedis } from '../../../test/support/connect-test-redis.ts';
import { RedisSettlementSpool } from './redis-settlement-spool.ts';

const admin = await connectTestRedis('RedisSettlementSpool');
const prefix = `switchyard-test:settlements:${randomUUID()}`;

function settlement(id: string): Settlement {
  return {
    id,
    holdId: `hold_${id}`,
    accountId: 'account',
    cost: 7,
    reason: 'chat model',
    requestId: `request_${id}`,
    createdAt: 1,
    record: {
      requestId: `request_${id}`,
      accountId: 'account',
      apiKeyId: 'key',
      surface: 'chat',
      model: 'model',
      deployment: 'provider/model',
      inputTokens: 1,
      inputCacheReadTokens: 0,
      inputCacheWrite5mTokens: 0,
      inputCacheWrite1hTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      latencyMs: 1,
      firstTokenMs: null,
      outcome: 'ok',
      status: 200,
      createdAt: 1,
    },
  };
}

describe.runIf(admin !== undefined)('RedisSettlementSpool (docs/decisions/0161)', () => {
  afterAll(async () => {
    await admin?.unlink(`${prefix}:settlements`);
    await admin?.quit();
  });

  it('lets a second process land, once, what the first kept while the store refused it', async () => {
    const redis = admin!;
    const spool = new RedisSettlementSpool(redis, prefix);
    const landed = new Map<string, SettlementResult>();
    let down = true;
    const ledger = {
      async settle(kept: Settlement): Promise<SettlementResult> {
        if (down) throw new Error('the store is down');
        const result = landed.get(kept.id) ?? { charged: kept.cost, shortfall: 0 };
        landed.set(kept.id, result);
        return result;
      },
    } as unknown as CreditLedger;

    const killed = new SettlementOutbox({ ledger, spool, retryMs: 60_000 });
    expect(await killed.submit(settlement('s1'))).toBeUndefined();
    killed.close();
    expect(await redis.hkeys(`${prefix}:settlements`)).toEqual(['s1']);

    down = false;
    const other = new SettlementOutbox({ ledger, spool, retryMs: 60_000 });
    await other.flush();
    // A second flush, or the first process's own retry, finds nothing more to charge.
    await other.flush();
    other.close();
    expect([...landed.entries()]).toEqual([['s1', { charged: 7, shortfall: 0 }]]);
    expect(await redis.exists(`${prefix}:settlements`)).toBe(0);
  });

  it('reports an entry it cannot read and leaves it in place', async () => {
    const redis = admin!;
    await redis.hset(`${prefix}:settlements`, 'broken', '{not json');
    const unreadable: string[] = [];
    const kept = await new RedisSettlementSpool(redis, prefix).load((_, where) =>
      unreadable.push(where),
    );
    expect(kept).toEqual([]);
    expect(unreadable).toEqual([`${prefix}:settlements broken`]);
    expect(await redis.hkeys(`${prefix}:settlements`)).toEqual(['broken']);

    // An outbox reads the spool on every flush, and says so once.
    const reported: string[] = [];
    const outbox = new SettlementOutbox({
      ledger: {} as CreditLedger,
      spool: new RedisSettlementSpool(redis, prefix),
      retryMs: 60_000,
      onUnreadable: (_, where) => reported.push(where),
    });
    await outbox.flush();
    await outbox.flush();
    outbox.close();
    expect(reported).toEqual([`${prefix}:settlements broken`]);
  });
});
