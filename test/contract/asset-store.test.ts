import { describeAssetStoreContract } from './asset-store.contract.ts';
import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
} from '../support/isolated-test-stores.ts';

describeAssetStoreContract('SQLite', () => openTemporarySqliteStore(true));
describeAssetStoreContract('PostgreSQL', openIsolatedPostgresStore);
