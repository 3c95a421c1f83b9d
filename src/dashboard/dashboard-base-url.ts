import type { Config } from '../config/config-schema.ts';

/**
 * Where a sign-in link points: `server.publicBaseUrl` when set (what browsers reach behind a
 * proxy), else this host on the configured port (`PORT` overrides it in load-config.ts).
 */
export function dashboardBaseUrl(config: Pick<Config, 'server'>): string {
  const base = config.server.publicBaseUrl ?? `http://localhost:${config.server.port}`;
  return base.replace(/\/+$/, '');
}
