import { Counter, Gauge, type Registry } from 'prom-client';

import type { Settlement, SettlementResult } from './credit-ledger.ts';

export interface SettlementMetrics {
  /** Counts a landed settlement's shortfall, if it had one. */
  observe(settlement: Settlement, result: SettlementResult): void;
  setWaiting(count: number): void;
}

/**
 * On GET /metrics (docs/decisions/0017): the price that neither hold nor balance covered (never
 * charged: something to look at, since holds are sized never to allow it) and the settlements
 * waiting for the store.
 */
export function createSettlementMetrics(registry: Registry): SettlementMetrics {
  const shortfalls = new Counter({
    name: 'switchyard_settlement_shortfalls_total',
    help: 'Settlements whose price the hold and the balance could not cover in full.',
    labelNames: ['model'],
    registers: [registry],
  });
  const shortfallMicroCredits = new Counter({
    name: 'switchyard_settlement_shortfall_micro_credits_total',
    help: 'Micro-credits of price not charged because the hold and the balance could not cover it.',
    labelNames: ['model'],
    registers: [registry],
  });
  const waiting = new Gauge({
    name: 'switchyard_settlements_waiting',
    help: 'Settlements the store could not take yet, kept and retried.',
    registers: [registry],
  });
  return {
    observe(settlement, result) {
      if (result.shortfall === 0) return;
      shortfalls.inc({ model: settlement.record.model });
      shortfallMicroCredits.inc({ model: settlement.record.model }, result.shortfall);
    },
    setWaiting: (count) => waiting.set(count),
  };
}
