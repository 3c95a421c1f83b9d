import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import {
  startFakeUpstream,
  type FakeUpstream,
  type RecordedRequest,
} from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

/** The key the gateway holds for its upstream; clients never see it, the fake demands it. */
export const upstreamKey = 'sdk-clients-upstream-key';
const upstreamKeyEnv = 'SDK_CLIENTS_UPSTREAM_KEY';

/** One model per upstream dialect, so each SDK meets its own dialect and a foreign one. */
export const sdkModels = {
  anthropic: 'sdk-via-anthropic',
  chat: 'sdk-via-chat',
  responses: 'sdk-via-responses',
} as const;

const providerKinds = {
  anthropic: 'anthropic',
  chat: 'openai-chat',
  responses: 'openai-responses',
} as const;

export const weatherSchema = {
  type: 'object' as const,
  properties: {
    city: { type: 'string' as const },
    unit: { type: 'string' as const, enum: ['C', 'F'] },
  },
  required: ['city'],
  additionalProperties: false,
};

export interface SdkTestBed {
  fake: FakeUpstream;
  gateway: TestGateway;
  /** The listening gateway's origin, without `/v1`. */
  origin: string;
  token: string;
  close(): Promise<void>;
}

/** A listening gateway whose three providers all point at one fake upstream requiring a key. */
export async function startSdkTestBed(): Promise<SdkTestBed> {
  const fake = await startFakeUpstream({ requireKey: upstreamKey });
  process.env[upstreamKeyEnv] = upstreamKey;
  const gateway = await startTestGateway({
    providers: Object.fromEntries(
      Object.values(providerKinds).map((kind) => [
        kind,
        { kind, baseUrl: fake.url, apiKeyEnv: upstreamKeyEnv },
      ]),
    ),
    models: (Object.keys(sdkModels) as (keyof typeof sdkModels)[]).map((key) =>
      testModel(sdkModels[key], providerKinds[key]),
    ),
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gateway.app.server.address() as AddressInfo;
  const { token } = await gateway.createToken({ credits: 1_000_000_000 });
  return {
    fake,
    gateway,
    origin: `http://127.0.0.1:${port}`,
    token,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}

/**
 * The upstream request carried the configured key and nothing of the client token (spec: the
 * client credential is the gateway's, never forwarded).
 */
export function expectUpstreamCredential(request: RecordedRequest | undefined, token: string) {
  expect(request).toBeDefined();
  const headers = request?.headers ?? {};
  const carriesKey =
    headers.authorization === `Bearer ${upstreamKey}` || headers['x-api-key'] === upstreamKey;
  expect(carriesKey, JSON.stringify(headers)).toBe(true);
  expect(JSON.stringify(headers)).not.toContain(token);
  expect(request?.rawBody).not.toContain(token);
}

/** The one generation request the fake received for the test. */
export function onlyGenerationRequest(fake: FakeUpstream): RecordedRequest {
  const generation = fake.requests.filter((request) => request.dialect !== undefined);
  expect(generation).toHaveLength(1);
  return generation[0] as RecordedRequest;
}
