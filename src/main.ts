import pino from 'pino';
import { composeGateway } from './compose.ts';
import { shutDown } from './composition/shut-down.ts';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { createLogStream } from './logging/create-log-stream.ts';
import { explainStartupFailure, startupExitCodes } from './logging/explain-startup-failure.ts';
import { logFirstStartHint } from './logging/log-first-start-hint.ts';

/** Process entry: configuration → composition → listen → graceful shutdown. */
async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(startupExitCodes.configuration);
    }
    throw error;
  }
  const { config, source } = loaded;
  const stream = await createLogStream(process.stdout);
  // Start-up speaks before the app's logger exists, in the same lines.
  const startupLog =
    stream !== undefined
      ? pino({ level: config.server.logLevel }, stream)
      : pino({ level: config.server.logLevel });
  const listening = { host: config.server.host, port: config.server.port };
  // A failure the gateway can explain is one line naming the fix and a documented exit code;
  // anything else is a bug and keeps its stack.
  const exitExplained = (error: unknown): void => {
    const failure = explainStartupFailure(error, listening);
    if (failure === undefined) return;
    startupLog.fatal(failure.fields, failure.message);
    startupLog.flush();
    process.exit(failure.exitCode);
  };
  let gateway;
  try {
    gateway = await composeGateway(config, {
      logger: { level: config.server.logLevel, ...(stream !== undefined ? { stream } : {}) },
      processMetrics: true,
      warn: (message, fields) => startupLog.warn(fields, message),
    });
  } catch (error) {
    exitExplained(error);
    throw error;
  }
  const { app } = gateway;
  app.log.info(
    {
      config: source ?? '(defaults)',
      store: config.store.backend,
      dataDir: config.dataDir,
      models: config.models.length,
    },
    'configuration loaded',
  );

  const accounts = await gateway.store.accounts.listAccounts();
  if (accounts.length === 0) {
    logFirstStartHint(app.log);
  }

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Cut calls get this long to write their settlements; a process that still cannot close
    // after it exits anyway (their holds expire, docs/decisions/0099).
    const lastResort = setTimeout(() => {
      app.log.error('the stores did not close after the grace period; exiting');
      process.exit(1);
    }, config.server.shutdownGraceMs + 10_000);
    lastResort.unref();
    shutDown(gateway, { graceMs: config.server.shutdownGraceMs }).then(
      (code) => process.exit(code),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // A process manager's "reload": the configuration file is read again and its reloadable parts
  // swapped, requests in flight finishing on the old one; the reload logs its one line, and a
  // signal while one runs joins it (docs/decisions/0140).
  process.on('SIGHUP', () => {
    if (closing) return;
    void gateway.reload({ via: 'SIGHUP' }).catch((error: unknown) => {
      app.log.error({ err: error }, 'configuration reload failed');
    });
  });

  try {
    await app.listen(listening);
  } catch (error) {
    // The store's lease and connections go before the exit, so the next start is not refused.
    await gateway.close().catch(() => undefined);
    exitExplained(error);
    throw error;
  }
}

await main();
