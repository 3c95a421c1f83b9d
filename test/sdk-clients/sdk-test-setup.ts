import { expect } from 'vitest';
import type { FakeUpstream, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  modelPerDialect,
  startUpstreamTestBed,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/** The key the gateway holds for its upstream; clients never see it, the fake demands it. */
export const upstreamKey = 'sdk-clients-upstream-key';

/** One model per upstream dialect, so each SDK meets its own dialect and a foreign one. */
export const sdkModels = {
  anthropic: 'sdk-via-anthropic',
  chat: 'sdk-via-chat',
  responses: 'sdk-via-responses',
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

export type SdkTestBed = UpstreamTestBed;

/** A listening gateway whose three providers all point at one fake upstream requiring a key. */
export function startSdkTestBed(): Promise<SdkTestBed> {
  return startUpstreamTestBed({ ...modelPerDialect(sdkModels), upstreamKey, listen: true });
}

/**
 * The upstream request carried the configured key and nothing of the client token (the
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
