import type { Redis } from 'ioredis';

import type { Settlement } from '../../billing/credit-ledger.ts';
import type { SettlementSpool } from '../../billing/settlement-spool.ts';

/**
 * Waiting settlements in one Redis hash (`<prefix>:settlements`, field = settlement id) that every
 * process of a deployment reads on its retries, so the charges a process kept are landed by the
 * others when it never comes back (docs/decisions/0161). Several processes may land the same
 * settlement at once: CreditLedger.settle charges a settlement id once.
 */
export class RedisSettlementSpool implements SettlementSpool {
  readonly #redis: Redis;
  readonly #key: string;

  constructor(redis: Redis, keyPrefix: string) {
    this.#redis = redis;
    this.#key = `${keyPrefix}:settlements`;
  }

  async keep(settlement: Settlement): Promise<void> {
    await this.#redis.hset(this.#key, settlement.id, JSON.stringify(settlement));
  }

  async forget(settlementId: string): Promise<void> {
    await this.#redis.hdel(this.#key, settlementId);
  }

  async load(onUnreadable: (error: unknown, where: string) => void): Promise<Settlement[]> {
    const entries = await this.#redis.hgetall(this.#key);
    const settlements: Settlement[] = [];
    for (const [id, text] of Object.entries(entries)) {
      try {
        settlements.push(JSON.parse(text) as Settlement);
      } catch (error) {
        onUnreadable(error, `${this.#key} ${id}`);
      }
    }
    return settlements;
  }
}
