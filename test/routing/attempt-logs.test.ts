import { beforeEach, describe, expect, it } from 'vitest';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

type LogLine = Record<string, unknown>;

/**
 * Every failed attempt is one warn line for the operator, naming the target by provider,
 * deployment and key id; no log line ever holds a key's secret.
 */
describe('the log of failed attempts', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
      routing: { backoffMs: 0 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  /** The lines of a request's failed attempts; `withOwn` adds its own failure line. */
  function attemptLines(requestId: unknown, withOwn = false): LogLine[] {
    const messages = withOwn
      ? ['upstream attempt failed', 'upstream call failed']
      : ['upstream attempt failed'];
    return bed.gateway.logs
      .map((text) => JSON.parse(text) as LogLine)
      .filter((line) => messages.includes(line.msg as string) && line.requestId === requestId);
  }

  it('writes one line per failed attempt and none for the answer', async () => {
    const [overloaded, limited, answering] = bed.keys.main as string[];
    bed.fake.behaveForKey(overloaded as string, { status: 529 });
    bed.fake.behaveForKey(limited as string, { status: 429, headers: { 'retry-after': '7' } });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBe(200);

    const lines = attemptLines(response.headers['request-id']);
    const model = bed.gateway.catalog.get('pooled');
    const keyIds = model?.targets.map((target) => target.key.id) ?? [];
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        provider: 'main',
        deployment: 'main/pooled-upstream',
        keyId: keyIds[0],
        attempt: 1,
        failure: 'server',
        upstreamStatus: 529,
      }),
      expect.objectContaining({
        keyId: keyIds[1],
        attempt: 2,
        failure: 'rate_limited',
        upstreamStatus: 429,
        retryAfterMs: 7_000,
      }),
    ]);
    expect(bed.callsTo(answering as string)).toBe(1);
  });

  it('writes one line per attempt of a request that failed, the last being its own', async () => {
    const [dropped, refused, failing] = bed.keys.main as string[];
    bed.fake.behaveForKey(dropped as string, { dropConnection: true });
    bed.fake.behaveForKey(refused as string, { status: 403 });
    bed.fake.behaveForKey(failing as string, { status: 500 });
    const response = await bed.send('pooled');
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    const lines = attemptLines(response.headers['request-id'], true);
    expect(lines.map((line) => line.failure).sort()).toEqual(['connection', 'refused', 'server']);
    expect(lines.map((line) => line.attempt).sort()).toEqual([1, 2, 3]);
    // The failure the client was shown is the request's own line, not an attempt line too.
    expect(lines.filter((line) => line.msg === 'upstream call failed')).toHaveLength(1);
    expect(attemptLines(response.headers['request-id'])).toHaveLength(2);
  });

  it('never writes a key secret in any line', () => {
    expect(bed.gateway.logs.length).toBeGreaterThan(0);
    for (const line of bed.gateway.logs) {
      for (const key of bed.keys.main as string[]) expect(line).not.toContain(key);
      // Nor a recognisable part of one.
      for (const key of bed.keys.main as string[]) expect(line).not.toContain(key.slice(-16));
    }
  });
});
