import { openStore } from '../compose.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { OperatorService } from '../operator/operator-service.ts';
import { runCli } from './run-cli.ts';

let store;
try {
  const { config } = loadConfig();
  store = await openStore(config);
} catch (error) {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(78);
}
const code = await runCli(process.argv.slice(2), new OperatorService(store), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
await store.close();
process.exitCode = code;
