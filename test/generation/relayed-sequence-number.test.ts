import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

/**
 * Issue 14 §7: when a relayed responses stream breaks, the gateway's own failure event continues
 * the upstream's `sequence_number` instead of starting again at 0.
 */
describe('the failure event of a relayed responses stream', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({
      providers: { responses: { kind: 'openai-responses', baseUrl: upstream.url } },
      models: [testModel('relay/responses', 'responses')],
    });
    ({ token } = await gateway.createToken({ credits: 10_000_000 }));
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const cutMode of ['end', 'destroy'] as const) {
    it(`continues the numbering after a stream cut short (${cutMode})`, async () => {
      upstream.enqueue({
        output: [{ text: 'An answer that never completes.' }],
        cutAfterEvents: 5,
        cutMode,
      });
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: { authorization: `Bearer ${token}` },
        payload: { model: 'relay/responses', input: 'Hi', stream: true, store: false },
      });
      expect(response.statusCode).toBe(200);
      const events = parseServerSentEvents(response.body).map(
        (event) => JSON.parse(event.data) as { type: string; sequence_number: number },
      );
      const numbers = events.map((event) => event.sequence_number);
      expect(events.at(-1)?.type).toBe('response.failed');
      expect(numbers).toEqual(numbers.map((_, index) => index));
      expect(numbers.at(-1), JSON.stringify(events.map((event) => event.type))).toBe(5);
    });
  }
});
