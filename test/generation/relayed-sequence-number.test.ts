import { describe, expect, it } from 'vitest';

import { parseServerSentEvents } from '../support/parse-sse.ts';
import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/**
 * When a relayed responses stream breaks, the gateway's own failure event continues
 * the upstream's `sequence_number` instead of starting again at 0.
 */
describe('the failure event of a relayed responses stream', () => {
  const bed = useUpstreamTestBed({
    ...modelPerDialect({ responses: 'relay/responses' }),
    credits: 10_000_000,
  });

  for (const cutMode of ['end', 'destroy'] as const) {
    it(`continues the numbering after a stream cut short (${cutMode})`, async () => {
      bed.fake.enqueue({
        output: [{ text: 'An answer that never completes.' }],
        cutAfterEvents: 5,
        cutMode,
      });
      const response = await bed.gateway.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: { authorization: `Bearer ${bed.token}` },
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
