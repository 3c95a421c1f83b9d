import type { Store } from '../../src/store/store.ts';
import { describeAccountStoreContract } from './account-store.contract.ts';
import { describeApiKeyStoreContract } from './api-key-store.contract.ts';
import { describeCreditLedgerContract } from './credit-ledger.contract.ts';
import { describeDashboardSessionStoreContract } from './dashboard-session-store.contract.ts';
import { describeResponseStoreContract } from './response-store.contract.ts';
import { describeUsageStoreContract } from './usage-store.contract.ts';

/** Every port's contract against one adapter; each suite opens a store of its own. */
export function describeStoreContracts(name: string, openStore: () => Promise<Store>): void {
  describeAccountStoreContract(name, openStore);
  describeApiKeyStoreContract(name, openStore);
  describeCreditLedgerContract(name, openStore);
  describeUsageStoreContract(name, openStore);
  describeResponseStoreContract(name, openStore);
  describeDashboardSessionStoreContract(name, openStore);
}
