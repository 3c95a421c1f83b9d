/**
 * A gateway in a process of its own, for tests that need several: composes the gateway from the
 * JSON configuration in argv[2], listens on a free loopback port, prints `listening <url>`, and
 * closes when its stdin ends. SIGTERM stops it as `src/main.ts` does: in-flight calls get
 * `server.shutdownGraceMs`, and the exit code says whether some had to be cut.
 */
import { composeGateway } from '../../src/compose.ts';
import { shutDown } from '../../src/composition/shut-down.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const [configText] = process.argv.slice(2);
if (configText === undefined) throw new Error('usage: run-gateway-child <config json>');

const config = parseConfig(JSON.parse(configText) as Record<string, unknown>);
const gateway = await composeGateway(config);
const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${address}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void gateway.close().then(() => process.exit(0));
});
process.once('SIGTERM', () => {
  void shutDown(gateway, { graceMs: config.server.shutdownGraceMs }).then((code) =>
    process.exit(code),
  );
});
