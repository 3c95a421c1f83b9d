import { openStore } from '../composition/open-store.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { OperatorService } from '../operator/operator-service.ts';
import { dashboardBaseUrl } from '../dashboard/dashboard-base-url.ts';
import { StoreHeldError } from '../store/store-held-error.ts';
import { StoreNewerThanBuildError } from '../store/store-newer-than-build-error.ts';
import type { Store } from '../store/store.ts';
import { adminApiTarget, createAdminApiClient } from './admin-api-client.ts';
import { runCli } from './run-cli.ts';

let store: Store | undefined;
const openOperator = async (): Promise<OperatorService> => {
  let config;
  try {
    ({ config } = loadConfig());
    // Never the owner, so every command runs beside a gateway on the same file
    // (docs/decisions/0014).
    store = await openStore(config, { owner: false });
  } catch (error) {
    // A gateway serving the file blocks what this build would do to it (a schema upgrade):
    // EX_TEMPFAIL, as the gateway exits in the same case, once that gateway has stopped.
    if (error instanceof StoreHeldError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(75);
    }
    const explained = error instanceof ConfigError || error instanceof StoreNewerThanBuildError;
    process.stderr.write(`${explained ? error.message : String(error)}\n`);
    process.exit(78);
  }
  return new OperatorService(store, Date.now, { dashboardBaseUrl: dashboardBaseUrl(config) });
};
const adminApi = (url: string | undefined) => {
  let config;
  try {
    ({ config } = loadConfig());
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(78);
  }
  return createAdminApiClient(adminApiTarget(config, process.env, url));
};
const code = await runCli(
  process.argv.slice(2),
  openOperator,
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
  Date.now,
  adminApi,
);
await store?.close();
process.exitCode = code;
