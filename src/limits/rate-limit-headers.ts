import type { RateLimitStanding } from './rate-limiter.ts';

/**
 * The `x-ratelimit-*` headers OpenAI's API sends and its SDKs expose (docs/decisions/0149), from
 * the standing the limiter read at admission: limit, remaining and reset per kind. A kind with no
 * configured limit sends none of its three.
 */
export function rateLimitHeaders(standing: RateLimitStanding | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (standing === undefined) return headers;
  // Written out per kind: every answer sends them, and names built per call cost a string each.
  const { requests, tokens } = standing;
  if (requests !== undefined) {
    headers['x-ratelimit-limit-requests'] = String(requests.limit);
    headers['x-ratelimit-remaining-requests'] = String(requests.remaining);
    headers['x-ratelimit-reset-requests'] = formatResetDuration(requests.resetMs);
  }
  if (tokens !== undefined) {
    headers['x-ratelimit-limit-tokens'] = String(tokens.limit);
    headers['x-ratelimit-remaining-tokens'] = String(tokens.remaining);
    headers['x-ratelimit-reset-tokens'] = formatResetDuration(tokens.resetMs);
  }
  return headers;
}

/**
 * The last reset formatted: answers in the same millisecond, and the two kinds of one answer
 * (charged in the same second), tell the same reset.
 */
let lastResetMs = Number.NaN;
let lastResetText = '';

/**
 * A duration as OpenAI writes its resets (Go's duration notation): `20ms` below a second,
 * `59.75s` below a minute, `1m0s` and `6m30.5s` above, `0s` for nothing to wait.
 */
export function formatResetDuration(milliseconds: number): string {
  const ms = Math.max(0, Math.round(milliseconds));
  if (ms === lastResetMs) return lastResetText;
  lastResetText = durationText(ms);
  lastResetMs = ms;
  return lastResetText;
}

function durationText(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = decimalSeconds(ms % 60_000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** Whole seconds, with the milliseconds as a fraction without trailing zeros. */
function decimalSeconds(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const fraction = ms % 1000;
  if (fraction === 0) return String(whole);
  if (fraction % 100 === 0) return `${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}
