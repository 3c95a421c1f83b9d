import { describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

/**
 * A key that answers 429 is left out for the wait the upstream asked for; the provider's other
 * keys carry its share meanwhile, and the key is used again once the wait is over.
 */
describe('a rate-limited key among three', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
    }),
  );

  it('is called at most once during its cooldown and again after it', async () => {
    const [limited, ...others] = bed.keys.main as string[];
    bed.fake.behaveForKey(limited as string, { status: 429, headers: { 'retry-after': '30' } });

    for (let index = 0; index < 100; index += 1) {
      const response = await bed.send('pooled');
      expect(response.statusCode).toBe(200);
    }
    expect(bed.callsTo(limited as string)).toBe(1);
    for (const key of others) expect(bed.callsTo(key)).toBeGreaterThanOrEqual(45);

    // One second short of the wait, it is still out.
    bed.advance(29_000);
    const before = bed.fake.requests.length;
    for (let index = 0; index < 6; index += 1) await bed.send('pooled');
    expect(bed.callsTo(limited as string, bed.fake.requests.slice(before))).toBe(0);

    bed.advance(1_000);
    bed.fake.clearKeyBehaviour(limited as string);
    const after = bed.fake.requests.length;
    for (let index = 0; index < 30; index += 1) {
      const response = await bed.send('pooled');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-switchyard-deployment']).toBe('main/pooled-upstream; attempts=1');
    }
    // Back in rotation: its share of an even split (within one call of the round robin's phase).
    const returned = bed.callsTo(limited as string, bed.fake.requests.slice(after));
    expect(returned).toBeGreaterThanOrEqual(9);
    expect(returned).toBeLessThanOrEqual(11);
  });
});
