import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

interface ErrorBody {
  type: string;
  error: { type: string; message: string };
}

/**
 * What a client sees when no target can take its call: 429 while every key cools down, 503 while
 * every circuit is open or every key is out of rotation, each with how long to wait, and no
 * upstream call. An answered call names its deployment and attempts, never a key.
 */
describe('answers about targets', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
      routing: {
        failureThreshold: 1,
        circuitOpenSeconds: 40,
        disabledProbeSeconds: 120,
        backoffMs: 0,
      },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  const keys = () => bed.keys.main as string[];

  it('names the deployment and the attempts in x-switchyard-deployment, never a key', async () => {
    bed.fake.behaveForKey(keys()[0] as string, { status: 500 });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBe(200);
    const header = String(response.headers['x-switchyard-deployment']);
    expect(header).toBe('main/pooled-upstream; attempts=2');
    const catalogModel = bed.gateway.catalog.get('pooled');
    for (const target of catalogModel?.targets ?? []) {
      expect(header).not.toContain(target.key.id);
      expect(header).not.toContain(target.key.secret);
    }
    for (const [name, value] of Object.entries(response.headers)) {
      for (const key of keys()) expect(`${name}: ${String(value)}`).not.toContain(key);
    }
  });

  it('answers 429 with retry-after, without an upstream call, while every key cools down', async () => {
    for (const key of keys()) {
      bed.fake.behaveForKey(key, { status: 429, headers: { 'retry-after': '30' } });
    }
    const first = await bed.send('pooled');
    expect(first.statusCode).toBe(429);
    expect(first.headers['retry-after']).toBe('30');
    expect(bed.fake.requests).toHaveLength(3);

    bed.advance(10_000);
    const blocked = await bed.send('pooled');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBe('20');
    expect(blocked.json<ErrorBody>().error.type).toBe('rate_limit_error');
    expect(bed.fake.requests).toHaveLength(3);

    // The earliest key back ends the wait.
    bed.advance(20_000);
    for (const key of keys()) bed.fake.clearKeyBehaviour(key);
    expect((await bed.send('pooled')).statusCode).toBe(200);
  });

  it('answers 503 with retry-after, without an upstream call, while every circuit is open', async () => {
    for (const key of keys()) bed.fake.behaveForKey(key, { status: 500 });
    expect((await bed.send('pooled')).statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.fake.requests).toHaveLength(3);

    bed.advance(15_000);
    const blocked = await bed.send('pooled');
    expect(blocked.statusCode).toBe(503);
    expect(blocked.headers['retry-after']).toBe('25');
    const body = blocked.json<ErrorBody>();
    expect(body.error.type).toBe('overloaded_error');
    expect(body.error.message).toMatch(/failing or out of rotation/);
    expect(bed.fake.requests).toHaveLength(3);
  });

  it('answers 503 with retry-after while every key is out of rotation', async () => {
    for (const key of keys()) bed.fake.behaveForKey(key, { status: 401 });
    expect((await bed.send('pooled')).statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.fake.requests).toHaveLength(3);

    const blocked = await bed.send('pooled');
    expect(blocked.statusCode).toBe(503);
    expect(blocked.headers['retry-after']).toBe('120');
    expect(bed.fake.requests).toHaveLength(3);
  });
});
