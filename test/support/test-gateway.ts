import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../../src/generation/usage-store.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { composeGateway, type ComposeOptions, type Gateway } from '../../src/compose.ts';
import type { Config } from '../../src/config/config-schema.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import type { Permission, TokenInterface } from '../../src/auth/permissions.ts';
import {
  startFakeUpstream,
  type FakeUpstream,
  type FakeUpstreamOptions,
} from '../fake-upstream/fake-upstream-server.ts';

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

/** The "request completed" log line of one request, parsed; undefined when it was not written. */
export function completionLine(
  gateway: Pick<TestGateway, 'logs'>,
  requestId: unknown,
): Record<string, unknown> | undefined {
  return gateway.logs
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .find((entry) => entry.msg === 'request completed' && entry.requestId === requestId);
}

/** The usage record a settlement wrote for this account, waited for (settlements may trail). */
export async function settledUsageRecord(
  gateway: Pick<TestGateway, 'store'>,
  accountId: string,
): Promise<UsageRecord> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const [record] = await gateway.store.usage.listUsage(accountId, 1);
    if (record !== undefined) return record;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no usage record was written');
}

/**
 * A gateway on a fresh SQLite file, logging into memory, with an optional configuration; `env`
 * adds variables (provider keys) to the process's own.
 */
export async function startTestGateway(
  rawConfig: Record<string, unknown> = {},
  options: Pick<
    ComposeOptions,
    'warn' | 'store' | 'now' | 'blobs' | 'readConfig' | 'processMetrics' | 'dashboardDirectory'
  > & {
    env?: Record<string, string>;
  } = {},
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
    env: { ...process.env, ...options.env, SWITCHYARD_ADMIN_TOKEN: adminToken },
    logger: { level: 'trace', stream },
    ...(options.warn !== undefined ? { warn: options.warn } : {}),
    ...(options.store !== undefined ? { store: options.store } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.blobs !== undefined ? { blobs: options.blobs } : {}),
    ...(options.readConfig !== undefined ? { readConfig: options.readConfig } : {}),
    ...(options.processMetrics !== undefined ? { processMetrics: options.processMetrics } : {}),
    ...(options.dashboardDirectory !== undefined
      ? { dashboardDirectory: options.dashboardDirectory }
      : {}),
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
      // Account names are unique: one account per token made here.
      const account = await gateway.operator.createAccount({
        name: `test ${randomUUID()}`,
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

/** A streamed message-style request of one user turn, as a client sends it. */
export function streamMessage(
  baseUrl: string,
  token: string,
  options: { model: string; maxTokens: number; signal?: AbortSignal },
): Promise<Dispatcher.ResponseData> {
  return request(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-api-key': token,
    },
    body: JSON.stringify({
      model: options.model,
      max_tokens: options.maxTokens,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
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

/** The provider kind of each upstream dialect the fake upstream speaks. */
export const upstreamKinds = {
  anthropic: 'anthropic',
  chat: 'openai-chat',
  responses: 'openai-responses',
} as const;

export type UpstreamDialect = keyof typeof upstreamKinds;

/**
 * One provider per upstream dialect (named after it) and one model on each, so a client meets its
 * own dialect and the foreign ones. `overrides` go into every model entry.
 */
export function modelPerDialect(
  modelIds: Partial<Record<UpstreamDialect, string>>,
  overrides: Record<string, unknown> = {},
): Pick<UpstreamTestBedOptions, 'providers' | 'models'> {
  const dialects = Object.keys(modelIds) as UpstreamDialect[];
  return {
    providers: Object.fromEntries(
      dialects.map((dialect) => [dialect, { kind: upstreamKinds[dialect] }]),
    ),
    models: dialects.map((dialect) => testModel(modelIds[dialect] as string, dialect, overrides)),
  };
}

export interface UpstreamTestBedOptions {
  /** Provider id → its settings; `baseUrl` is the fake upstream's unless given. */
  providers: Record<string, { kind: string } & Record<string, unknown>>;
  models: Record<string, unknown>[];
  /** The fake refuses calls without this key, and every provider is configured with it. */
  upstreamKey?: string;
  /** The fake upstream's own options (its model list). */
  fake?: Omit<FakeUpstreamOptions, 'requireKey'>;
  /** Further configuration: limits, server, responses, … */
  config?: Record<string, unknown>;
  /** Listen on a loopback port for clients that connect (SDKs, real clients, WebSockets). */
  listen?: boolean;
  /** Credits of the bed's client token. */
  credits?: number;
  /** The clock the gateway reads, for suites that move time. */
  now?: () => number;
  /** Further environment variables (the keys a provider's own `apiKeyEnv` names). */
  env?: Record<string, string>;
  /** Collect the Node.js process metrics on /metrics (one gateway per test file should). */
  processMetrics?: boolean;
}

export interface UpstreamTestBed {
  fake: FakeUpstream;
  gateway: TestGateway;
  /** The listening gateway's origin, without `/v1`; empty unless `listen` was asked for. */
  origin: string;
  /** A client token of an account holding `credits`. */
  token: string;
  accountId: string;
  close(): Promise<void>;
}

/** The environment variable through which the gateway reads the fake upstream's key. */
const upstreamKeyEnv = 'SWITCHYARD_TEST_UPSTREAM_KEY';

/**
 * The test bed most suites share: a fake upstream, a gateway whose providers point at it, and a
 * client token with credits. Suites over the network ask for `listen`; the rest use `inject()`.
 */
export async function startUpstreamTestBed(
  options: UpstreamTestBedOptions,
): Promise<UpstreamTestBed> {
  const { upstreamKey } = options;
  const fake = await startFakeUpstream({
    ...options.fake,
    ...(upstreamKey !== undefined ? { requireKey: upstreamKey } : {}),
  });
  const keySetting = upstreamKey !== undefined ? { apiKeyEnv: upstreamKeyEnv } : {};
  const gateway = await startTestGateway(
    {
      ...options.config,
      providers: Object.fromEntries(
        Object.entries(options.providers).map(([id, settings]) => [
          id,
          { baseUrl: fake.url, ...keySetting, ...settings },
        ]),
      ),
      models: options.models,
    },
    {
      env: {
        ...options.env,
        ...(upstreamKey !== undefined ? { [upstreamKeyEnv]: upstreamKey } : {}),
      },
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.processMetrics !== undefined ? { processMetrics: options.processMetrics } : {}),
    },
  );
  let origin = '';
  if (options.listen === true) {
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = gateway.app.server.address() as AddressInfo;
    origin = `http://127.0.0.1:${port}`;
  }
  const { token, accountId } = await gateway.createToken({
    credits: options.credits ?? 1_000_000_000,
  });
  // Suites reset the fake between tests; what the router learned from one test's scripted
  // failures (a 429's cooldown, an open circuit) is forgotten with it.
  const resetFake = fake.reset.bind(fake);
  fake.reset = () => {
    resetFake();
    gateway.router.forget();
  };
  return {
    fake,
    gateway,
    origin,
    token,
    accountId,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}
