import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

const probeSeconds = 300;

/**
 * A key the upstream refuses (401) leaves the rotation at its first refusal; after
 * `disabledProbeSeconds` a single call probes it, and a probe that succeeds brings it back.
 */
describe('a refused key among three', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
      routing: { disabledProbeSeconds: probeSeconds },
    }),
  );

  /** Sends `count` calls at once; every one must succeed. */
  async function burst(count: number): Promise<void> {
    const responses = await Promise.all(Array.from({ length: count }, () => bed.send('pooled')));
    for (const response of responses) expect(response.statusCode).toBe(200);
  }

  it('is out after one refusal, probed once per wait, and back after a good probe', async () => {
    const [refused, ...others] = bed.keys.main as string[];
    bed.fake.behaveForKey(refused as string, { status: 401 });

    for (let index = 0; index < 60; index += 1) {
      expect((await bed.send('pooled')).statusCode).toBe(200);
    }
    expect(bed.callsTo(refused as string)).toBe(1);
    for (const key of others) expect(bed.callsTo(key)).toBe(30);

    // The wait over, a burst sends exactly one probe; refused again, the key waits anew.
    bed.advance(probeSeconds * 1000);
    let mark = bed.fake.requests.length;
    await burst(12);
    expect(bed.callsTo(refused as string, bed.fake.requests.slice(mark))).toBe(1);
    mark = bed.fake.requests.length;
    await burst(12);
    bed.advance(probeSeconds * 1000 - 1);
    await burst(12);
    expect(bed.callsTo(refused as string, bed.fake.requests.slice(mark))).toBe(0);

    // The upstream accepts the key again: the next probe succeeds and it takes its share.
    bed.fake.clearKeyBehaviour(refused as string);
    bed.advance(1);
    mark = bed.fake.requests.length;
    await burst(6);
    expect(bed.callsTo(refused as string, bed.fake.requests.slice(mark))).toBe(1);
    mark = bed.fake.requests.length;
    for (let index = 0; index < 30; index += 1) await bed.send('pooled');
    const share = bed.callsTo(refused as string, bed.fake.requests.slice(mark));
    expect(share).toBeGreaterThanOrEqual(9);
    expect(share).toBeLessThanOrEqual(11);
  });

  describe('whatever says the key is refused or out of credit', () => {
    beforeEach(() => {
      bed.fake.reset();
      bed.gateway.router.forget();
    });

    it.each([
      ['403', { status: 403 }],
      ['402', { status: 402 }],
      ['429 insufficient_quota', { status: 429, errorType: 'insufficient_quota' }],
      [
        '400 credit balance too low',
        {
          status: 400,
          errorType: 'invalid_request_error',
          errorMessage: 'Your credit balance is too low to access the Anthropic API.',
        },
      ],
    ] as const)('%s takes the key out after one call', async (_name, behaviour) => {
      const [out, ...others] = bed.keys.main as string[];
      bed.fake.behaveForKey(out as string, behaviour);
      for (let index = 0; index < 20; index += 1) {
        expect((await bed.send('pooled')).statusCode).toBe(200);
      }
      expect(bed.callsTo(out as string)).toBe(1);
      for (const key of others) expect(bed.callsTo(key)).toBe(10);
      bed.advance(probeSeconds * 1000 - 1);
      for (let index = 0; index < 6; index += 1) await bed.send('pooled');
      expect(bed.callsTo(out as string)).toBe(1);
    });
  });
});
