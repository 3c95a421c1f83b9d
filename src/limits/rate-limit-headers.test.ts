import { describe, expect, it } from 'vitest';
import { parseResetDuration } from '../routing/read-rate-limit-headers.ts';
import { formatResetDuration, rateLimitHeaders } from './rate-limit-headers.ts';

describe('formatResetDuration', () => {
  it.each([
    [0, '0s'],
    [20, '20ms'],
    [999, '999ms'],
    [1000, '1s'],
    [1_004, '1.004s'],
    [1_040, '1.04s'],
    [1_050, '1.05s'],
    [1_400, '1.4s'],
    [8_640, '8.64s'],
    [59_750, '59.75s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [390_500, '6m30.5s'],
    [3_600_010, '1h0m0.01s'],
    [3_723_004, '1h2m3.004s'],
  ])('writes %d ms as %s', (ms, expected) => {
    expect(formatResetDuration(ms)).toBe(expected);
    // Asked again at once (the next answer in the same millisecond), it says the same.
    expect(formatResetDuration(ms)).toBe(expected);
  });
});

describe('rateLimitHeaders', () => {
  it('sends the three headers of each limited kind and none of an unlimited one', () => {
    expect(rateLimitHeaders({ requests: { limit: 60, remaining: 59, resetMs: 59_500 } })).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '59.5s',
    });
    expect(rateLimitHeaders({ tokens: { limit: 1000, remaining: 0, resetMs: 20 } })).toEqual({
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '20ms',
    });
    expect(rateLimitHeaders({})).toEqual({});
    expect(rateLimitHeaders(undefined)).toEqual({});
  });
});

describe('reset durations read back', () => {
  it('are read back exactly by the parser the router uses on OpenAI-style upstreams', () => {
    for (const ms of [0, 1, 20, 999, 1000, 1001, 59_750, 60_000, 61_250, 3_723_004]) {
      expect(parseResetDuration(formatResetDuration(ms))).toBeCloseTo(ms, 6);
    }
  });
});
