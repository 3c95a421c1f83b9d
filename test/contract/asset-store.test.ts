import { describeAssetStoreContract } from './asset-store.contract.ts';
import { openIsolatedPostgresStore, openTemporarySqliteStore } from './open-test-stores.ts';

describeAssetStoreContract('SQLite', openTemporarySqliteStore);
describeAssetStoreContract('PostgreSQL', openIsolatedPostgresStore);
