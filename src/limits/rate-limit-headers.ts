import type { RateLimitAllowance, RateLimitStanding } from './rate-limiter.ts';

/**
 * The `x-ratelimit-*` headers OpenAI's API sends and its SDKs expose (docs/decisions/0149), from
 * the standing the limiter read at admission: limit, remaining and reset per kind. A kind with no
 * configured limit sends none of its three.
 */
export function rateLimitHeaders(standing: RateLimitStanding | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (standing === undefined) return headers;
  const add = (kind: 'requests' | 'tokens', allowance: RateLimitAllowance | undefined) => {
    if (allowance === undefined) return;
    headers[`x-ratelimit-limit-${kind}`] = String(allowance.limit);
    headers[`x-ratelimit-remaining-${kind}`] = String(allowance.remaining);
    headers[`x-ratelimit-reset-${kind}`] = formatResetDuration(allowance.resetMs);
  };
  add('requests', standing.requests);
  add('tokens', standing.tokens);
  return headers;
}

/**
 * A duration as OpenAI writes its resets (Go's duration notation): `20ms` below a second,
 * `59.75s` below a minute, `1m0s` and `6m30.5s` above, `0s` for nothing to wait.
 */
export function formatResetDuration(milliseconds: number): string {
  const ms = Math.max(0, Math.round(milliseconds));
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
  const fraction = String(ms % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}
