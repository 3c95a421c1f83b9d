import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

/**
 * A key's own per-minute budget (`apiKeyEnv` entries with `requestsPerMinute` /
 * `tokensPerMinute`) keeps the gateway from sending it more than its upstream account allows:
 * the other keys take the rest, and when every budget is spent the client is told to wait for
 * the minute to turn, with no upstream call.
 */
describe('per-key budgets', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: {
        main: { keys: 2, budgets: [{ requestsPerMinute: 3 }, { requestsPerMinute: 5 }] },
        metered: { keys: 2, budgets: [{ tokensPerMinute: 1_000 }] },
      },
      models: [
        routedModel('budgeted', [{ provider: 'main', upstreamModel: 'budgeted-upstream' }]),
        routedModel('metered', [{ provider: 'metered', upstreamModel: 'metered-upstream' }]),
      ],
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  it('sends each key no more calls a minute than its budget', async () => {
    const [small, large] = bed.keys.main as [string, string];
    for (let index = 0; index < 8; index += 1) {
      expect((await bed.send('budgeted')).statusCode).toBe(200);
    }
    expect(bed.callsTo(small)).toBe(3);
    expect(bed.callsTo(large)).toBe(5);

    bed.advance(20_000);
    const blocked = await bed.send('budgeted');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBe('40');
    expect(bed.fake.requests).toHaveLength(8);

    bed.advance(40_000);
    for (let index = 0; index < 8; index += 1) {
      expect((await bed.send('budgeted')).statusCode).toBe(200);
    }
    expect(bed.callsTo(small)).toBe(6);
    expect(bed.callsTo(large)).toBe(10);
  });

  it('counts the tokens a key spent against its token budget', async () => {
    const [metered, free] = bed.keys.metered as [string, string];
    bed.fake.enqueue({ output: [{ text: 'big' }], usage: { input: 900, output: 200 } });
    expect((await bed.send('metered')).statusCode).toBe(200);
    expect(bed.callsTo(metered)).toBe(1);
    for (let index = 0; index < 6; index += 1) await bed.send('metered');
    // 1 100 tokens spent of 1 000: left out until the minute turns.
    expect(bed.callsTo(metered)).toBe(1);
    expect(bed.callsTo(free)).toBe(6);
    bed.advance(60_000);
    for (let index = 0; index < 6; index += 1) await bed.send('metered');
    expect(bed.callsTo(metered)).toBe(4);
  });
});
