import path from 'node:path';
import { createSettlementMetrics } from '../billing/create-settlement-metrics.ts';
import { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { CreditLedger } from '../billing/credit-ledger.ts';
import type { Config } from '../config/config-schema.ts';
import type { HttpMetrics } from '../http/http-metrics.ts';

/**
 * Settlements the store could not take are kept and retried until they land
 * (docs/decisions/0017), with their metrics beside the HTTP ones.
 */
export function composeSettlements(options: {
  config: Config;
  ledger: CreditLedger;
  metrics: HttpMetrics;
  /** Only a store this gateway opened has a data folder of its own to keep settlements in. */
  ownsStore: boolean;
  logError(error: unknown, message: string, fields?: Record<string, unknown>): void;
}): SettlementOutbox {
  const settlementMetrics = createSettlementMetrics(options.metrics.registry);
  return new SettlementOutbox({
    ledger: options.ledger,
    directory: options.ownsStore ? path.join(options.config.dataDir, 'settlements') : undefined,
    retryMs: 5_000,
    onSettled: (settlement, result) => settlementMetrics.observe(settlement, result),
    onWaiting: (count) => settlementMetrics.setWaiting(count),
    onUnreadable: (error, file) =>
      options.logError(error, 'a kept settlement file cannot be read; left in place', { file }),
    onFailure: (error, settlement) =>
      options.logError(error, 'writing a settlement failed; it is kept and retried', {
        requestId: settlement.requestId,
      }),
  });
}
