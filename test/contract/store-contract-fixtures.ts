import { randomUUID } from 'node:crypto';

import type { Account } from '../../src/auth/account-store.ts';
import type { Store } from '../../src/store/store.ts';

/** Contract suites share one store per suite, so every test works on ids of its own. */
export function uniqueId(prefix: string): string {
  return `${prefix}_${randomUUID()}`;
}

export async function createTestAccount(
  store: Store,
  overrides: Partial<Account> = {},
): Promise<Account> {
  const account: Account = {
    id: uniqueId('account'),
    // Account names are unique (docs/operations.md).
    name: uniqueId('Contract test account'),
    isAdmin: false,
    createdAt: Date.now(),
    ...overrides,
  };
  await store.accounts.createAccount(account);
  return account;
}
