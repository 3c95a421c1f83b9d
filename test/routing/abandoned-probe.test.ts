import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

const openSeconds = 30;
const probeSeconds = 60;

/**
 * A probe whose client goes away before the upstream answers teaches nothing: the target must
 * not stay out of rotation for good because of it, and the next call after it may probe again.
 */
describe('a probe abandoned by its client', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { flaky: 1, steady: 1 },
      models: [
        routedModel('split', [
          { provider: 'flaky', upstreamModel: 'split-flaky' },
          { provider: 'steady', upstreamModel: 'split-steady' },
        ]),
      ],
      routing: {
        failureThreshold: 1,
        circuitOpenSeconds: openSeconds,
        disabledProbeSeconds: probeSeconds,
        backoffMs: 0,
      },
      listen: true,
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  const flakyKey = () => bed.keys.flaky?.[0] as string;
  const flakyCalls = (mark: number) => bed.callsTo(flakyKey(), bed.fake.requests.slice(mark));

  /**
   * Sends calls until one reaches the flaky deployment (the round robin may pick the other
   * first), and goes away while that one waits for its answer.
   */
  async function abandonProbe(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const controller = new AbortController();
      const mark = bed.fake.requests.length;
      let settled = false;
      const pending = request(`${bed.origin}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'x-api-key': bed.token,
        },
        body: JSON.stringify({
          model: 'split',
          max_tokens: 50,
          // Distinct openings: no conversation pin decides the target.
          messages: [{ role: 'user', content: `A probe nobody waits for, ${attempt}.` }],
        }),
        signal: controller.signal,
      })
        .then((response) => response.body.text())
        .catch(() => undefined)
        .finally(() => {
          settled = true;
        });
      while (!settled && flakyCalls(mark) === 0) await sleep(5);
      if (flakyCalls(mark) === 0) continue;
      controller.abort();
      await pending;
      // The gateway sees the client go and cancels its upstream call.
      console.log(
        'aborted; requests',
        bed.fake.requests.slice(mark).map((r) => [r.key === flakyKey(), r.clientAborted]),
      );
      while (!bed.fake.requests.slice(mark).some((recorded) => recorded.clientAborted))
        await sleep(5);
      return;
    }
  }

  async function sendAll(count: number): Promise<void> {
    for (let index = 0; index < count; index += 1)
      expect((await bed.send('split')).statusCode).toBe(200);
  }

  it('leaves an open circuit probeable', async () => {
    bed.fake.behaveForKey(flakyKey(), { status: 500 });
    await sendAll(2);
    expect(flakyCalls(0)).toBe(1);

    bed.advance(openSeconds * 1000);
    bed.fake.behaveForKey(flakyKey(), { delayMs: 5_000 });
    await abandonProbe();

    bed.fake.clearKeyBehaviour(flakyKey());
    bed.advance(openSeconds * 1000);
    const mark = bed.fake.requests.length;
    await sendAll(10);
    expect(flakyCalls(mark)).toBe(5);
  });

  it('leaves a disabled key probeable', async () => {
    bed.fake.behaveForKey(flakyKey(), { status: 401 });
    await sendAll(2);
    expect(flakyCalls(0)).toBe(1);

    bed.advance(probeSeconds * 1000);
    bed.fake.behaveForKey(flakyKey(), { delayMs: 5_000 });
    await abandonProbe();

    bed.fake.clearKeyBehaviour(flakyKey());
    bed.advance(probeSeconds * 1000);
    const mark = bed.fake.requests.length;
    await sendAll(10);
    expect(flakyCalls(mark)).toBe(5);
  });
});
