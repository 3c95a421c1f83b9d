import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import {
  startFakeUpstream,
  type FakeUpstream,
  type RecordedRequest,
} from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

/** A provider of the bed in full: its kind, and its keys' own per-minute budgets by position. */
export interface ProviderSpec {
  keys: number;
  kind?: string;
  budgets?: ({ requestsPerMinute?: number; tokensPerMinute?: number } | undefined)[];
}

export interface RoutingBedOptions {
  /**
   * Provider id → how many upstream keys it has (each its own variable), Anthropic-style unless
   * a `kind` is given.
   */
  providers: Record<string, number | ProviderSpec>;
  models: Record<string, unknown>[];
  /** The top-level `routing` section. */
  routing?: Record<string, unknown>;
  /** The fake keeps a prompt cache per key. */
  promptCache?: boolean;
  /** Listen on a loopback port, for clients that go away mid-call. */
  listen?: boolean;
}

export interface RoutingBed {
  fake: FakeUpstream;
  gateway: TestGateway;
  /** Provider id → its key secrets, in `apiKeyEnv` order. */
  keys: Record<string, string[]>;
  token: string;
  accountId: string;
  /** The listening gateway's origin; empty unless `listen` was asked for. */
  origin: string;
  /** The clock the gateway and the fake read: it stands still unless advanced. */
  now(): number;
  /** Moves that clock on, for cooldowns and circuit waits without sleeping. */
  advance(ms: number): void;
  /** A non-streamed `/v1/messages` call; a distinct first message each time unless `body` says. */
  send(
    model: string,
    options?: { body?: Record<string, unknown>; headers?: Record<string, string>; token?: string },
  ): Promise<LightMyRequestResponse>;
  /** Upstream calls presenting `key`, among `requests` (default: all so far). */
  callsTo(key: string, requests?: readonly RecordedRequest[]): number;
  close(): Promise<void>;
}

/** A model of `testModel`'s shape on the given deployments. */
export function routedModel(
  id: string,
  deployments: Record<string, unknown>[],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return testModel(id, 'unused', { deployments, ...overrides });
}

/**
 * A fake upstream and a gateway whose providers each hold several keys of their own, on a clock
 * the test moves. Keys are random per bed, so a leak of one into a log or header is detectable.
 */
export async function startRoutingBed(options: RoutingBedOptions): Promise<RoutingBed> {
  // Frozen but for `advance`, so a wait ends exactly when the test says.
  let clock = Date.now();
  const now = () => clock;
  const fake = await startFakeUpstream({
    ...(options.promptCache === true ? { promptCache: true } : {}),
    now,
  });
  const env: Record<string, string> = {};
  const keys: Record<string, string[]> = {};
  const providers: Record<string, unknown> = {};
  for (const [id, spec] of Object.entries(options.providers)) {
    const {
      keys: count,
      kind = 'anthropic',
      budgets = [],
    }: ProviderSpec = typeof spec === 'number' ? { keys: spec } : spec;
    const variables = Array.from(
      { length: count },
      (_, index) => `ROUTING_TEST_${id.toUpperCase()}_${index}`,
    );
    keys[id] = variables.map((variable) => {
      const secret = `sk-test-${id}-${randomBytes(12).toString('hex')}`;
      env[variable] = secret;
      return secret;
    });
    const apiKeyEnv = variables.map((variable, index) => {
      const budget = budgets[index];
      return budget === undefined ? variable : { env: variable, ...budget };
    });
    providers[id] = { kind, baseUrl: fake.url, apiKeyEnv };
  }
  const gateway = await startTestGateway(
    {
      providers,
      models: options.models,
      ...(options.routing !== undefined ? { routing: options.routing } : {}),
    },
    { env, now },
  );
  let origin = '';
  if (options.listen === true) {
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  }
  const { token, accountId } = await gateway.createToken({ credits: 1_000_000_000 });
  let sent = 0;
  return {
    fake,
    gateway,
    keys,
    token,
    accountId,
    origin,
    now,
    advance(ms) {
      clock += ms;
    },
    send(model, request = {}) {
      sent += 1;
      return gateway.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'x-api-key': request.token ?? token,
          ...request.headers,
        },
        payload: request.body ?? {
          model,
          max_tokens: 100,
          messages: [{ role: 'user', content: `question ${sent}` }],
        },
      });
    },
    callsTo(key, requests = fake.requests) {
      return requests.filter((recorded) => recorded.key === key).length;
    },
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}
