import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { composeGateway, type ComposeOptions, type Gateway } from '../../src/compose.ts';
import type { Config } from '../../src/config/config-schema.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import type { Permission, TokenInterface } from '../../src/auth/permissions.ts';

export const adminToken = 'admin-secret-for-tests';

export interface TestGateway extends Gateway {
  config: Config;
  /** Every log line the app wrote, parsed. */
  logs: string[];
  /** Creates an account with credits and a token; returns the token text. */
  createToken(options?: {
    permissions?: Permission[];
    interface?: TokenInterface;
    credits?: number;
    isAdmin?: boolean;
    expiresAt?: number | null;
    allowedModels?: string[] | null;
  }): Promise<{ token: string; accountId: string; apiKeyId: string }>;
}

/** A gateway on a fresh SQLite file, logging into memory, with an optional configuration. */
export async function startTestGateway(
  rawConfig: Record<string, unknown> = {},
  options: Pick<ComposeOptions, 'warn' | 'store'> = {},
): Promise<TestGateway> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'switchyard-test-'));
  const config = parseConfig({ ...rawConfig, dataDir });
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });
  const gateway = await composeGateway(config, {
    env: { ...process.env, SWITCHYARD_ADMIN_TOKEN: adminToken },
    logger: { level: 'trace', stream },
    ...options,
  });
  return {
    ...gateway,
    config,
    logs,
    async close() {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    },
    async createToken(options = {}) {
      const account = await gateway.operator.createAccount({
        name: 'test',
        isAdmin: options.isAdmin ?? false,
      });
      if ((options.credits ?? 0) !== 0) {
        await gateway.operator.changeCredits({
          accountId: account.id,
          amount: options.credits as number,
          reason: 'test grant',
          kind: 'grant',
        });
      }
      const created = await gateway.operator.createToken({
        accountId: account.id,
        name: 'test token',
        ...(options.permissions !== undefined ? { permissions: options.permissions } : {}),
        ...(options.interface !== undefined ? { interface: options.interface } : {}),
        expiresAt: options.expiresAt ?? null,
        allowedModels: options.allowedModels ?? null,
      });
      return { token: created.token, accountId: account.id, apiKeyId: created.apiKey.id };
    },
  };
}

/** A minimal valid model entry for tests. */
export function testModel(id: string, provider: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    deployments: [{ provider, upstreamModel: `${id}-upstream` }],
    capabilities: {
      streaming: true,
      tools: true,
      vision: true,
      reasoning: true,
      promptCache: true,
    },
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
    pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 },
    ...overrides,
  };
}
