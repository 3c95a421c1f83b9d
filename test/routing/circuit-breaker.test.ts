import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

const threshold = 5;
const openSeconds = 30;

/**
 * A deployment whose upstream fails with 5xx opens its circuit after `failureThreshold`
 * consecutive failures: its calls stop while the other deployment answers every client. After
 * `circuitOpenSeconds` one probe goes; its answer closes the circuit or opens it again.
 */
describe('the circuit of a failing deployment', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { flaky: 1, steady: 1 },
      models: [
        routedModel('split', [
          { provider: 'flaky', upstreamModel: 'split-flaky' },
          { provider: 'steady', upstreamModel: 'split-steady' },
        ]),
      ],
      routing: { failureThreshold: threshold, circuitOpenSeconds: openSeconds, backoffMs: 0 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  const flakyKey = () => bed.keys.flaky?.[0] as string;

  async function sendMany(count: number, concurrently = false): Promise<void> {
    const send = async () => {
      const response = await bed.send('split');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-switchyard-model']).toBe('split');
    };
    if (concurrently) await Promise.all(Array.from({ length: count }, send));
    else for (let index = 0; index < count; index += 1) await send();
  }

  /** Calls the flaky deployment received since the fake had `mark` requests. */
  function flakyCallsSince(mark: number): number {
    return bed.callsTo(flakyKey(), bed.fake.requests.slice(mark));
  }

  async function openCircuit(): Promise<void> {
    bed.fake.behaveForKey(flakyKey(), { status: 500 });
    await sendMany(4 * threshold);
    expect(bed.callsTo(flakyKey())).toBe(threshold);
  }

  it('opens after the threshold and lets every client through the other deployment', async () => {
    await openCircuit();
    const target = bed.gateway.catalog.get('split')?.targets[0];
    expect(target?.deployment.label).toBe('flaky/split-flaky');
    expect(bed.gateway.router.health(target?.id as string).circuit).toBe('open');
  });

  it('probes once after the wait; a recovered upstream closes it and gets traffic', async () => {
    await openCircuit();
    bed.advance(openSeconds * 1000 - 1);
    let mark = bed.fake.requests.length;
    await sendMany(10);
    expect(flakyCallsSince(mark)).toBe(0);

    bed.fake.clearKeyBehaviour(flakyKey());
    bed.advance(1);
    mark = bed.fake.requests.length;
    await sendMany(10, true);
    expect(flakyCallsSince(mark)).toBe(1);

    mark = bed.fake.requests.length;
    await sendMany(20);
    expect(flakyCallsSince(mark)).toBe(10);
  });

  it('probes once after the wait; a still failing upstream opens it again', async () => {
    await openCircuit();
    bed.advance(openSeconds * 1000);
    let mark = bed.fake.requests.length;
    await sendMany(10, true);
    expect(flakyCallsSince(mark)).toBe(1);

    // One failed probe is enough: no new run of `threshold` failures.
    mark = bed.fake.requests.length;
    await sendMany(20);
    bed.advance(openSeconds * 1000 - 1);
    await sendMany(10);
    expect(flakyCallsSince(mark)).toBe(0);
    bed.advance(1);
    await sendMany(10);
    expect(flakyCallsSince(mark)).toBe(1);
  });

  it('counts only consecutive failures', async () => {
    // Four failures, an answer, four failures: never the threshold in a row.
    for (let round = 0; round < 2; round += 1) {
      bed.fake.behaveForKey(flakyKey(), { status: 503 });
      await sendMany(2 * (threshold - 1));
      bed.fake.clearKeyBehaviour(flakyKey());
      await sendMany(2);
    }
    const mark = bed.fake.requests.length;
    await sendMany(10);
    expect(flakyCallsSince(mark)).toBe(5);
  });
});
