import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

const retryDeadlineMs = 20_000;

/**
 * A request makes at most `maxAttempts` upstream calls and starts none after `retryDeadlineMs`;
 * every call it made is over, for the router, when the request is.
 */
describe('the limits of the attempt loop', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 4 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
      routing: { maxAttempts: 2, retryDeadlineMs, backoffMs: 0, failureThreshold: 100 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  const targets = () => bed.gateway.catalog.get('pooled')?.targets ?? [];

  it('stops after maxAttempts calls although other keys are left', async () => {
    for (const key of bed.keys.main as string[]) bed.fake.behaveForKey(key, { status: 500 });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.fake.requests).toHaveLength(2);
  });

  it('starts no attempt once the retry deadline has passed', async () => {
    bed.fake.enqueue(() => {
      // The first attempt takes the whole deadline.
      bed.advance(retryDeadlineMs);
      return { status: 503 };
    });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.fake.requests).toHaveLength(1);
  });

  it('still retries within the deadline', async () => {
    bed.fake.enqueue(() => {
      bed.advance(retryDeadlineMs - 1);
      return { status: 503 };
    });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-switchyard-deployment']).toBe('main/pooled-upstream; attempts=2');
  });

  it('leaves no call in flight after answers, streams and failures', async () => {
    const [failing] = bed.keys.main as string[];
    bed.fake.behaveForKey(failing as string, { status: 500 });
    const stream = {
      model: 'pooled',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'Stream it.' }],
    };
    const responses = await Promise.all([
      ...Array.from({ length: 8 }, () => bed.send('pooled')),
      ...Array.from({ length: 8 }, () => bed.send('pooled', { body: stream })),
    ]);
    for (const response of responses) expect(response.statusCode).toBe(200);
    expect(bed.fake.requests.length).toBeGreaterThan(16);
    for (const target of targets()) {
      const health = bed.gateway.router.health(target.id);
      expect(health.inFlight, target.id).toBe(0);
      expect(health.calls, target.id).toBeGreaterThan(0);
    }
  });
});
