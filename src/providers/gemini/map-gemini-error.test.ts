import { describe, expect, it } from 'vitest';
import { mapUpstreamStatus } from '../shared/map-upstream-failure.ts';
import { readGeminiJsonFixture } from './__fixtures__/read-gemini-fixture.ts';
import { readGoogleRetryDelayMs, withGoogleRetryAfter } from '../shared/google-retry-info.ts';
import { mapGeminiStreamError } from './map-gemini-error.ts';

const exhausted = readGeminiJsonFixture('error-resource-exhausted.json');

describe('Gemini errors', () => {
  it('reads the RetryInfo wait among the other details', () => {
    expect(readGoogleRetryDelayMs(exhausted)).toBe(12_000);
    expect(
      readGoogleRetryDelayMs({
        error: {
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }],
        },
      }),
    ).toBe(1_500);
    expect(readGoogleRetryDelayMs({ error: { status: 'RESOURCE_EXHAUSTED' } })).toBeUndefined();
  });

  it('turns the wait into retry-after so a 429 carries it to the client and the router', () => {
    const headers = withGoogleRetryAfter(
      { 'content-type': 'application/json' },
      JSON.stringify(exhausted),
    );
    expect(headers['retry-after']).toBe('12');
    const failure = mapUpstreamStatus(429, headers, JSON.stringify(exhausted), Date.now());
    expect(failure.error.code).toBe('upstream_rate_limited');
    expect(failure.error.retryAfter).toBe(12);
    expect(failure.retryable).toBe(true);
  });

  it('leaves an explicit retry-after and a body that is not JSON alone', () => {
    const explicit = { 'retry-after': '3' };
    expect(withGoogleRetryAfter(explicit, JSON.stringify(exhausted))).toBe(explicit);
    expect(withGoogleRetryAfter({}, '<html>')).toEqual({});
  });

  it('maps Gemini’s HTTP errors through the one status mapping', () => {
    const body = (code: number, status: string, message: string) =>
      JSON.stringify({ error: { code, message, status } });
    const invalid = mapUpstreamStatus(400, {}, body(400, 'INVALID_ARGUMENT', 'bad part'), 0);
    expect(invalid.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(invalid.error.message).toContain('bad part');
    expect(invalid.retryable).toBe(false);
    const denied = mapUpstreamStatus(403, {}, body(403, 'PERMISSION_DENIED', 'key AIza…'), 0);
    expect(denied.error).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(denied.error.message).not.toContain('AIza');
    expect(mapUpstreamStatus(404, {}, body(404, 'NOT_FOUND', 'no model'), 0).retryable).toBe(true);
    expect(
      mapUpstreamStatus(503, {}, body(503, 'UNAVAILABLE', 'overloaded'), 0).error,
    ).toMatchObject({
      code: 'not_ready',
      status: 503,
    });
  });

  it('maps errors inside a stream by their canonical status', () => {
    expect(mapGeminiStreamError(exhausted)).toMatchObject({
      code: 'upstream_rate_limited',
      status: 429,
      retryAfter: 12,
    });
    expect(
      mapGeminiStreamError({
        error: { code: 400, message: 'bad schema', status: 'INVALID_ARGUMENT' },
      }),
    ).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: 'Upstream rejected the request: bad schema',
    });
    expect(mapGeminiStreamError({ error: { code: 503, status: 'UNAVAILABLE' } })).toMatchObject({
      code: 'not_ready',
      status: 503,
    });
    expect(mapGeminiStreamError({ error: { code: 500, status: 'INTERNAL' } })).toMatchObject({
      code: 'upstream_error',
      status: 502,
    });
  });
});
