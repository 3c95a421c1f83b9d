import { expect } from 'vitest';
import type { RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { upstreamKey } from './real-client-bed.ts';

/**
 * The upstream request carried the gateway's own key and nothing of the client token: the
 * client credential is the gateway's, never forwarded (docs/api.md).
 */
export function expectOnlyGatewayCredential(request: RecordedRequest, token: string): void {
  const { headers } = request;
  const carriesKey =
    headers.authorization === `Bearer ${upstreamKey}` ||
    headers['x-api-key'] === upstreamKey ||
    headers['api-key'] === upstreamKey;
  expect(carriesKey, JSON.stringify(headers)).toBe(true);
  expect(JSON.stringify(headers)).not.toContain(token);
  expect(request.rawBody).not.toContain(token);
}
