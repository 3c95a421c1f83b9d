import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

/** Upstream calls per upstream model, among the fake's requests. */
function callsByModel(requests: readonly { body: unknown }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { body } of requests) {
    const model = String((body as { model?: unknown }).model);
    counts[model] = (counts[model] ?? 0) + 1;
  }
  return counts;
}

/**
 * Weights share the calls among the healthy deployments of one priority; a higher priority gets
 * calls only when every target of the lower one is out.
 */
describe('weights and priorities', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { first: 2, second: 1, backup: 1 },
      models: [
        routedModel('weighted', [
          { provider: 'first', upstreamModel: 'heavy', weight: 3 },
          { provider: 'second', upstreamModel: 'light', weight: 1 },
        ]),
        routedModel('tiered', [
          // Listed first on purpose: priority, not configuration order, decides.
          { provider: 'backup', upstreamModel: 'reserve', priority: 1 },
          { provider: 'first', upstreamModel: 'preferred' },
        ]),
      ],
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  it('splits 400 calls 3:1 by weight, whichever key of a deployment serves', async () => {
    for (let index = 0; index < 400; index += 1) {
      expect((await bed.send('weighted')).statusCode).toBe(200);
    }
    const counts = callsByModel(bed.fake.requests);
    expect(counts.heavy).toBeGreaterThanOrEqual(270);
    expect(counts.heavy).toBeLessThanOrEqual(330);
    expect((counts.heavy ?? 0) + (counts.light ?? 0)).toBe(400);
    // The heavy deployment's two keys share its part evenly.
    const [one, two] = bed.keys.first as string[];
    expect(Math.abs(bed.callsTo(one as string) - bed.callsTo(two as string))).toBeLessThanOrEqual(
      1,
    );
  });

  it('gives the priority-1 deployment nothing while priority 0 is healthy', async () => {
    for (let index = 0; index < 40; index += 1) {
      const response = await bed.send('tiered');
      expect(response.headers['x-switchyard-deployment']).toBe('first/preferred; attempts=1');
    }
    expect(callsByModel(bed.fake.requests)).toEqual({ preferred: 40 });
  });

  it('gives the priority-1 deployment everything once every priority-0 key is out', async () => {
    for (const key of bed.keys.first as string[]) bed.fake.behaveForKey(key, { status: 401 });
    // Each refused key costs one attempt, once.
    const first = await bed.send('tiered');
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-switchyard-deployment']).toBe('backup/reserve; attempts=3');
    const mark = bed.fake.requests.length;
    for (let index = 0; index < 40; index += 1) {
      const response = await bed.send('tiered');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-switchyard-deployment']).toBe('backup/reserve; attempts=1');
    }
    expect(callsByModel(bed.fake.requests.slice(mark))).toEqual({ reserve: 40 });
  });

  it('still prefers priority 0 while one of its keys is out', async () => {
    const [refused] = bed.keys.first as string[];
    bed.fake.behaveForKey(refused as string, { status: 403 });
    for (let index = 0; index < 20; index += 1) {
      expect((await bed.send('tiered')).statusCode).toBe(200);
    }
    expect(callsByModel(bed.fake.requests)).toEqual({ preferred: 21 });
    expect(bed.callsTo(refused as string)).toBe(1);
  });

  it('returns to priority 0 once its keys have cooled down', async () => {
    for (const key of bed.keys.first as string[])
      bed.fake.behaveForKey(key, { status: 429, headers: { 'retry-after': '10' } });
    expect((await bed.send('tiered')).headers['x-switchyard-deployment']).toBe(
      'backup/reserve; attempts=3',
    );
    for (const key of bed.keys.first as string[]) bed.fake.clearKeyBehaviour(key);
    bed.advance(9_999);
    expect((await bed.send('tiered')).headers['x-switchyard-deployment']).toBe(
      'backup/reserve; attempts=1',
    );
    bed.advance(1);
    const mark = bed.fake.requests.length;
    for (let index = 0; index < 10; index += 1) await bed.send('tiered');
    expect(callsByModel(bed.fake.requests.slice(mark))).toEqual({ preferred: 10 });
  });
});
