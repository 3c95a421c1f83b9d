import { afterAll, beforeAll } from 'vitest';

import type { Store } from '../../src/store/store.ts';

/** Opens one store for the surrounding `describe` and closes it afterwards. */
export function useContractStore(openStore: () => Promise<Store>): () => Store {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(async () => {
    await store?.close();
  });
  return () => {
    if (store === undefined) throw new Error('The contract store did not open');
    return store;
  };
}
