import { describe, expect, it } from 'vitest';
import {
  parseResetDuration,
  readExhaustedUntil,
  readRetryAfterMs,
} from './read-rate-limit-headers.ts';

/** A whole second, so HTTP dates (which have no milliseconds) land on it exactly. */
const now = Date.parse('2026-03-01T12:00:00Z');

describe('parseResetDuration', () => {
  it.each([
    ['1s', 1_000],
    ['6m0s', 360_000],
    ['20ms', 20],
    ['1h2m3s', 3_723_000],
    ['1.5s', 1_500],
    ['2m', 120_000],
    ['59m59.999s', 3_599_999],
    ['1m500ms', 60_500],
    [' 3s ', 3_000],
  ])('reads %j as %i ms', (text, millis) => {
    expect(parseResetDuration(text)).toBe(millis);
  });

  it.each(['', 'soon', '5', 's', '1x', '-1s'])('gives up on %j', (text) => {
    expect(parseResetDuration(text)).toBeUndefined();
  });
});

describe('readExhaustedUntil', () => {
  it('reads an Anthropic reset time with and without milliseconds', () => {
    expect(
      readExhaustedUntil(
        {
          'anthropic-ratelimit-requests-remaining': '0',
          'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:30Z',
        },
        now,
      ),
    ).toBe(now + 30_000);
    expect(
      readExhaustedUntil(
        {
          'anthropic-ratelimit-tokens-remaining': '0',
          'anthropic-ratelimit-tokens-reset': '2026-03-01T12:00:30.250Z',
        },
        now,
      ),
    ).toBe(now + 30_250);
  });

  it('takes the latest reset among the counters at 0 and ignores the others', () => {
    expect(
      readExhaustedUntil(
        {
          'anthropic-ratelimit-requests-remaining': '0',
          'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:10Z',
          'anthropic-ratelimit-input-tokens-remaining': '0',
          'anthropic-ratelimit-input-tokens-reset': '2026-03-01T12:00:20Z',
          'anthropic-ratelimit-output-tokens-remaining': '1200',
          'anthropic-ratelimit-output-tokens-reset': '2026-03-01T12:05:00Z',
        },
        now,
      ),
    ).toBe(now + 20_000);
  });

  it('reads OpenAI reset durations', () => {
    expect(
      readExhaustedUntil(
        { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6m0s' },
        now,
      ),
    ).toBe(now + 360_000);
    expect(
      readExhaustedUntil(
        {
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '20ms',
          'x-ratelimit-remaining-tokens': '0',
          'x-ratelimit-reset-tokens': '1h2m3s',
        },
        now,
      ),
    ).toBe(now + 3_723_000);
  });

  it('is 0 when nothing is used up, a reset has passed, or it cannot be read', () => {
    expect(readExhaustedUntil({}, now)).toBe(0);
    expect(
      readExhaustedUntil(
        { 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '1s' },
        now,
      ),
    ).toBe(0);
    expect(
      readExhaustedUntil(
        {
          'anthropic-ratelimit-requests-remaining': '0',
          'anthropic-ratelimit-requests-reset': '2026-03-01T11:59:59Z',
        },
        now,
      ),
    ).toBe(0);
    expect(
      readExhaustedUntil(
        { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': 'later' },
        now,
      ),
    ).toBe(0);
  });
});

describe('readRetryAfterMs', () => {
  it('prefers retry-after-ms', () => {
    expect(readRetryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '2' }, now)).toBe(1_500);
  });

  it('reads retry-after in seconds', () => {
    expect(readRetryAfterMs({ 'retry-after': '30' }, now)).toBe(30_000);
    expect(readRetryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
  });

  it('reads retry-after as an HTTP date', () => {
    const date = new Date(now + 45_000).toUTCString();
    expect(readRetryAfterMs({ 'retry-after': date }, now)).toBe(45_000);
    expect(readRetryAfterMs({ 'retry-after': new Date(now - 5_000).toUTCString() }, now)).toBe(
      undefined,
    );
  });

  it('falls back to the reset of a counter at 0', () => {
    expect(
      readRetryAfterMs(
        { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1s' },
        now,
      ),
    ).toBe(1_000);
  });

  it('is undefined when the upstream says nothing usable', () => {
    expect(readRetryAfterMs({}, now)).toBeUndefined();
    expect(readRetryAfterMs({ 'retry-after': 'whenever' }, now)).toBeUndefined();
    expect(readRetryAfterMs({ 'retry-after-ms': 'NaN' }, now)).toBeUndefined();
  });
});
