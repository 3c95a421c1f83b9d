import type { AddressInfo } from 'node:net';

import type { LightMyRequestResponse } from 'fastify';

import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { createFakeVertex, type FakeVertex } from '../fake-upstream/wire-vertex.ts';
import { surfacePaths, type SurfaceName } from '../generation/surface-clients.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

export const vertexModel = 'claude-on-vertex';
export const vertexUpstreamModel = 'claude-sonnet-4-5@20250929';
export const vertexGeminiModel = 'gemini-on-vertex';

export interface VertexBed {
  fake: FakeUpstream;
  vertex: FakeVertex;
  gateway: TestGateway;
  /** The listening gateway's origin; empty unless `listen` was asked for. */
  origin: string;
  /** The service accounts of the provider's keys, in `apiKeyEnv` order. */
  accounts: string[];
  /** A new account with credits, and its token. */
  newClient(): Promise<{ token: string; accountId: string }>;
  send(
    surface: SurfaceName,
    token: string,
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Forgets the fake's scripts and what the router learned from them. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A gateway whose model `claude-on-vertex` runs on one `vertex` provider backed by the fake's
 * Vertex AI, with `keys` service accounts (each key's JSON in its own variable).
 */
export async function startVertexBed(
  options: {
    keys?: number;
    routing?: Record<string, unknown>;
    now?: () => number;
    /** Listen on a loopback port, for real clients. */
    listen?: boolean;
    /** Settings of the model over `testModel`'s. */
    model?: Record<string, unknown>;
  } = {},
): Promise<VertexBed> {
  const vertex = createFakeVertex(options.now);
  const fake = await startFakeUpstream({
    wires: [vertex.wire],
    promptCache: true,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const accounts = Array.from(
    { length: options.keys ?? 1 },
    (_, index) => `gateway-${index}@fake-project.iam.gserviceaccount.com`,
  );
  const env = Object.fromEntries(
    accounts.map((account, index) => [
      `VERTEX_TEST_KEY_${index}`,
      vertex.tokens.serviceAccountKey(fake.url, account),
    ]),
  );
  const gateway = await startTestGateway(
    {
      providers: {
        vertex: {
          kind: 'vertex',
          project: 'fake-project',
          region: 'us-east5',
          baseUrl: fake.url,
          apiKeyEnv: Object.keys(env),
        },
      },
      models: [
        testModel(vertexModel, 'vertex', {
          deployments: [{ provider: 'vertex', upstreamModel: vertexUpstreamModel }],
          ...options.model,
        }),
        testModel(vertexGeminiModel, 'vertex', {
          deployments: [{ provider: 'vertex', upstreamModel: 'gemini-2.5-flash' }],
        }),
      ],
      ...(options.routing !== undefined ? { routing: options.routing } : {}),
    },
    { env, ...(options.now !== undefined ? { now: options.now } : {}) },
  );
  let origin = '';
  if (options.listen === true) {
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  }
  return {
    fake,
    vertex,
    gateway,
    origin,
    accounts,
    newClient: () => gateway.createToken({ credits: 1_000_000_000 }),
    send: (surface, token, body, headers = {}) =>
      gateway.app.inject({
        method: 'POST',
        url: surfacePaths[surface],
        headers: {
          ...(surface === 'messages'
            ? { 'x-api-key': token, 'anthropic-version': '2023-06-01' }
            : { authorization: `Bearer ${token}` }),
          ...headers,
        },
        payload: body,
      }),
    reset() {
      fake.reset();
      vertex.reset();
      gateway.router.forget();
    },
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}
