import type { Settlement } from './credit-ledger.ts';

/**
 * Where settlements the store could not take wait until they land (docs/decisions/0017): a folder
 * of the process's own, or a place every process of a deployment shares (docs/decisions/0161),
 * so that one that never comes back leaves its waiting charges to the others.
 */
export interface SettlementSpool {
  /** Keeps a settlement; resolved once it is durable there. */
  keep(settlement: Settlement): Promise<void>;
  /** Forgets a settlement that landed (no error when it is already gone). */
  forget(settlementId: string): Promise<void>;
  /**
   * Every settlement kept there, by this process or, when shared, by any other. An entry that
   * cannot be read is reported with where it is and left in place.
   */
  load(onUnreadable: (error: unknown, where: string) => void): Promise<Settlement[]>;
}
