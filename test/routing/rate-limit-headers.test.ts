import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

/**
 * The rate-limit counters upstreams send on every answer: a key whose counter reaches 0 on a
 * successful answer is left out until the reset they name, in Anthropic's RFC 3339 times and in
 * OpenAI's durations alike; a 429 without retry-after waits for the counter's reset too.
 */
describe('rate-limit headers', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { anthropic: 2, openai: { keys: 2, kind: 'openai-chat' } },
      models: [
        routedModel('via-anthropic', [{ provider: 'anthropic', upstreamModel: 'claude-up' }]),
        routedModel('via-openai', [{ provider: 'openai', upstreamModel: 'gpt-up' }]),
      ],
      routing: { cooldownSeconds: 30 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  for (const [provider, model] of [
    ['anthropic', 'via-anthropic'],
    ['openai', 'via-openai'],
  ] as const) {
    it(`${provider}: leaves a key whose counter is at 0 out until its reset`, async () => {
      const [spent, spare] = bed.keys[provider] as [string, string];
      bed.fake.rateLimitHeadersForKey(spent, { remainingRequests: 0, resetRequestsMs: 12_500 });
      bed.fake.rateLimitHeadersForKey(spare, { remainingRequests: 100, resetRequestsMs: 500 });
      expect((await bed.send(model)).statusCode).toBe(200);
      expect(bed.callsTo(spent)).toBe(1);

      for (let index = 0; index < 8; index += 1) {
        expect((await bed.send(model)).statusCode).toBe(200);
      }
      expect(bed.callsTo(spent)).toBe(1);
      expect(bed.callsTo(spare)).toBe(8);

      bed.fake.rateLimitHeadersForKey(spent, undefined);
      bed.advance(12_500);
      const mark = bed.fake.requests.length;
      for (let index = 0; index < 8; index += 1) await bed.send(model);
      expect(bed.callsTo(spent, bed.fake.requests.slice(mark))).toBe(4);
    });

    it(`${provider}: waits for the counter's reset after a 429 without retry-after`, async () => {
      for (const key of bed.keys[provider] as string[]) {
        bed.fake.behaveForKey(key, { status: 429 });
        bed.fake.rateLimitHeadersForKey(key, { remainingTokens: 0, resetTokensMs: 45_000 });
      }
      const first = await bed.send(model);
      expect(first.statusCode).toBe(429);
      expect(first.headers['retry-after']).toBe('45');
      const blocked = await bed.send(model);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBe('45');
      expect(bed.fake.requests).toHaveLength(2);
    });
  }

  it('tells the client the wait the keys are out for when a 429 names none in retry-after', async () => {
    const [first, second] = bed.keys.anthropic as [string, string];
    bed.fake.behaveForKey(first, { status: 429 });
    bed.fake.behaveForKey(second, { status: 429 });
    const bare = await bed.send('via-anthropic');
    expect(bare.statusCode).toBe(429);
    // routing.cooldownSeconds
    expect(bare.headers['retry-after']).toBe('30');

    bed.fake.reset();
    bed.gateway.router.forget();
    bed.fake.behaveForKey(first, { status: 429, headers: { 'retry-after-ms': '2500' } });
    bed.fake.behaveForKey(second, { status: 429, headers: { 'retry-after-ms': '7000' } });
    const millis = await bed.send('via-anthropic');
    expect(millis.statusCode).toBe(429);
    expect(millis.headers['retry-after']).toBe('3');
  });
});
