import type { Gateway } from '../compose.ts';

/**
 * Closes the gateway on a stop signal. Requests in flight (streams included) may finish within
 * `graceMs`; past it the connections still open are cut, so each call ends as it would if its
 * client had left: the upstream call is aborted and what was delivered is charged. The stores
 * close once those settlements are written (docs/decisions/0099). Resolves to the process's exit
 * code: 0 when every request finished, 1 when some had to be cut.
 */
export async function shutDown(
  gateway: Pick<Gateway, 'app' | 'close'>,
  options: { graceMs: number },
): Promise<number> {
  const { app } = gateway;
  let cut = false;
  const grace = setTimeout(() => {
    cut = true;
    app.log.warn(
      'grace period over: cutting the requests still open; what they delivered is charged',
    );
    app.server.closeAllConnections();
  }, options.graceMs);
  try {
    await gateway.close();
  } finally {
    clearTimeout(grace);
  }
  return cut ? 1 : 0;
}
