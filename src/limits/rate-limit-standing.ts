import { bucketLeavesWindowAt } from './rate-limit-window.ts';
import type { RateLimitAllowance, RateLimitScope, RateLimitStanding } from './rate-limiter.ts';

/** One limited kind of one scope, as an adapter reads it from its window. */
export interface CountedWindow {
  /** What the window counts at `now`. */
  total: number;
  /** The newest second the window counts; undefined when it counts nothing. */
  newestSecond: number | undefined;
}

/**
 * A scope's allowance from its window: every adapter reports the same numbers from the same
 * counts (the window rules of rate-limit-window.ts).
 */
export function allowanceOf(limit: number, window: CountedWindow, now: number): RateLimitAllowance {
  return countedAllowance(limit, window.total, window.newestSecond, now);
}

/** allowanceOf from the window's two figures, for an adapter that holds them apart. */
export function countedAllowance(
  limit: number,
  total: number,
  newestSecond: number | undefined,
  now: number,
): RateLimitAllowance {
  return {
    limit,
    remaining: Math.max(0, limit - total),
    resetMs:
      total <= 0 || newestSecond === undefined
        ? 0
        : Math.max(0, bucketLeavesWindowAt(newestSecond) - now),
  };
}

/** The window as it is once `amount` more is charged to the second of `now`. */
export function chargedWindow(
  window: CountedWindow,
  amount: number,
  second: number,
): CountedWindow {
  if (amount <= 0) return window;
  return {
    total: window.total + amount,
    newestSecond: Math.max(window.newestSecond ?? second, second),
  };
}

/** The tighter of two allowances: fewer remaining, then the later reset. */
export function tighter(
  held: RateLimitAllowance | undefined,
  candidate: RateLimitAllowance,
): RateLimitAllowance {
  if (held === undefined) return candidate;
  if (candidate.remaining !== held.remaining)
    return candidate.remaining < held.remaining ? candidate : held;
  return candidate.resetMs > held.resetMs ? candidate : held;
}

/**
 * Folds each scope's windows into the request's standing. `windows` gives, per scope in order,
 * the counted requests and tokens (undefined where the scope sets no such limit).
 */
export function standingOf(
  scopes: readonly RateLimitScope[],
  windows: ReadonlyArray<{ requests?: CountedWindow; tokens?: CountedWindow }>,
  now: number,
): RateLimitStanding {
  let requests: RateLimitAllowance | undefined;
  let tokens: RateLimitAllowance | undefined;
  for (let index = 0; index < scopes.length; index += 1) {
    const scope = scopes[index] as RateLimitScope;
    const counted = windows[index];
    if (scope.requestsPerMinute !== undefined && counted?.requests !== undefined)
      requests = tighter(requests, allowanceOf(scope.requestsPerMinute, counted.requests, now));
    if (scope.tokensPerMinute !== undefined && counted?.tokens !== undefined)
      tokens = tighter(tokens, allowanceOf(scope.tokensPerMinute, counted.tokens, now));
  }
  return standingFrom(requests, tokens);
}

/** A standing of the kinds that have an allowance, built without spreads on the request path. */
export function standingFrom(
  requests: RateLimitAllowance | undefined,
  tokens: RateLimitAllowance | undefined,
): RateLimitStanding {
  if (requests === undefined) return tokens === undefined ? {} : { tokens };
  return tokens === undefined ? { requests } : { requests, tokens };
}
