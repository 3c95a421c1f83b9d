import path from 'node:path';
import { createSettlementMetrics } from '../billing/create-settlement-metrics.ts';
import { FileSettlementSpool } from '../billing/file-settlement-spool.ts';
import { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { SettlementSpool } from '../billing/settlement-spool.ts';
import type { CreditLedger } from '../billing/credit-ledger.ts';
import type { Config } from '../config/config-schema.ts';
import type { HttpMetrics } from '../http/http-metrics.ts';

export interface ComposedSettlements {
  outbox: SettlementOutbox;
  /** Closes the spool's connection, once the last flush is done. */
  close(): Promise<void>;
}

/**
 * Settlements the store could not take are kept and retried until they land
 * (docs/decisions/0017), with their metrics beside the HTTP ones. On PostgreSQL with Redis they
 * wait in Redis, where every process lands them (docs/decisions/0161); otherwise in the data
 * folder of the process that owns its store.
 */
export async function composeSettlements(options: {
  config: Config;
  ledger: CreditLedger;
  metrics: HttpMetrics;
  /** Only a store this gateway opened has a data folder of its own to keep settlements in. */
  ownsStore: boolean;
  logError(error: unknown, message: string, fields?: Record<string, unknown>): void;
}): Promise<ComposedSettlements> {
  const { config } = options;
  let spool: SettlementSpool | undefined;
  let close = async () => {};
  if (config.store.backend === 'postgres' && config.store.redisUrl !== undefined) {
    // Loaded only when configured, like the PostgreSQL client (docs/performance.md).
    const { RedisSettlementSpool } = await import('../store/redis/redis-settlement-spool.ts');
    const { newRedisClient } = await import('../store/redis/connect-redis.ts');
    // Connects in the background: a settlement is only kept here while PostgreSQL fails it.
    const redis = newRedisClient(config.store.redisUrl);
    spool = new RedisSettlementSpool(redis, config.store.redisKeyPrefix);
    close = async () => {
      await redis.quit().catch(() => redis.disconnect());
    };
  } else if (options.ownsStore) {
    spool = new FileSettlementSpool(path.join(config.dataDir, 'settlements'));
  }
  const settlementMetrics = createSettlementMetrics(options.metrics.registry);
  const outbox = new SettlementOutbox({
    ledger: options.ledger,
    spool,
    retryMs: 5_000,
    onSettled: (settlement, result) => settlementMetrics.observe(settlement, result),
    onWaiting: (count) => settlementMetrics.setWaiting(count),
    onUnreadable: (error, where) =>
      options.logError(error, 'a kept settlement cannot be read; left in place', { where }),
    onSpoolError: (error) =>
      options.logError(error, 'the waiting settlements cannot be read or updated; retrying'),
    onFailure: (error, settlement) =>
      options.logError(error, 'writing a settlement failed; it is kept and retried', {
        requestId: settlement.requestId,
      }),
  });
  return { outbox, close };
}
