import type { SettlementResult } from './credit-ledger.ts';

/**
 * A settlement charges at most what the account can still cover — its own hold
 * plus the balance not reserved by other holds (`coverable` = balance − the other open holds).
 * The rest of the cost is the shortfall: recorded and counted, never charged into the negative.
 */
export function capSettlementCharge(cost: number, coverable: number): SettlementResult {
  const charged = Math.min(cost, Math.max(0, coverable));
  return { charged, shortfall: cost - charged };
}
