import { randomUUID } from 'node:crypto';
import {
  assertAcquireRateLimitRequest,
  assertReleaseRateLimitOptions,
} from './assert-rate-limit-request.ts';
import {
  RATE_LIMIT_WINDOW_SECONDS,
  oldestCountedSecond,
  secondsUntilBelowLimit,
  windowSecondOf,
} from './rate-limit-window.ts';
import {
  DEFAULT_RATE_LIMIT_LEASE_TTL_MS,
  type AcquireRateLimitRequest,
  type RateLimitDecision,
  type RateLimitLease,
  type RateLimitRefusal,
  type RateLimiter,
  type RateLimiterOptions,
  type ReleaseRateLimitOptions,
} from './rate-limiter.ts';

/** second → amount, for the seconds still counted (stale ones are pruned when next charged). */
type Buckets = Map<number, number>;

interface ScopeState {
  requests: Buckets;
  tokens: Buckets;
  /** Open lease id → its expiresAt. */
  leases: Map<string, number>;
}

/**
 * The embedded limiter (DESIGN.md §4 "Embedded default"): one process, so its limits are exact
 * for that process only. Each method runs to completion without awaiting, which is what makes
 * check-and-charge atomic here.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #leaseTtlMs: number;
  readonly #scopes = new Map<string, ScopeState>();
  /** Open leases in admission order, which is expiry order as long as `now` does not go back. */
  readonly #leases = new Map<string, RateLimitLease>();
  /** When the next sweep for scopes with nothing left to count is due. */
  #sweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: RateLimiterOptions = {}) {
    this.#leaseTtlMs = options.leaseTtlMs ?? DEFAULT_RATE_LIMIT_LEASE_TTL_MS;
  }

  async acquire(request: AcquireRateLimitRequest): Promise<RateLimitDecision> {
    assertAcquireRateLimitRequest(request);
    const { scopes, estimatedTokens, now } = request;
    this.#dropExpiredLeases(now);
    this.#dropIdleScopes(now);

    let refusal: RateLimitRefusal | undefined;
    const refuse = (candidate: RateLimitRefusal): void => {
      if (refusal === undefined || candidate.retryAfterSeconds > refusal.retryAfterSeconds) {
        refusal = candidate;
      }
    };
    for (const scope of scopes) {
      const state = this.#scopes.get(scope.key);
      if (state === undefined) continue;
      if (scope.requestsPerMinute !== undefined) {
        const counted = countedBuckets(state.requests, now);
        if (sumOf(counted) >= scope.requestsPerMinute) {
          const retryAfterSeconds = secondsUntilBelowLimit(counted, scope.requestsPerMinute, now);
          refuse({ ok: false, retryAfterSeconds, limit: 'requests', scopeKey: scope.key });
        }
      }
      if (scope.tokensPerMinute !== undefined) {
        const counted = countedBuckets(state.tokens, now);
        if (sumOf(counted) >= scope.tokensPerMinute) {
          const retryAfterSeconds = secondsUntilBelowLimit(counted, scope.tokensPerMinute, now);
          refuse({ ok: false, retryAfterSeconds, limit: 'tokens', scopeKey: scope.key });
        }
      }
      if (
        scope.concurrentRequests !== undefined &&
        countOpen(state.leases, now) >= scope.concurrentRequests
      ) {
        // A slot frees when some request ends, which the limiter cannot foresee.
        refuse({ ok: false, retryAfterSeconds: 1, limit: 'concurrency', scopeKey: scope.key });
      }
    }
    if (refusal !== undefined) return refusal;

    const lease: RateLimitLease = {
      id: randomUUID(),
      scopes: scopes.map((scope) => ({ ...scope })),
      estimatedTokens,
      acquiredAt: now,
      expiresAt: now + this.#leaseTtlMs,
    };
    const second = windowSecondOf(now);
    for (const scope of lease.scopes) {
      const state = this.#stateOf(scope.key);
      if (scope.requestsPerMinute !== undefined) {
        pruneBuckets(state.requests, now);
        addToBucket(state.requests, second, 1);
      }
      if (scope.tokensPerMinute !== undefined && estimatedTokens > 0) {
        pruneBuckets(state.tokens, now);
        addToBucket(state.tokens, second, estimatedTokens);
      }
      if (scope.concurrentRequests !== undefined) {
        state.leases.set(lease.id, lease.expiresAt);
      }
    }
    this.#leases.set(lease.id, lease);
    return { ok: true, lease };
  }

  async release(lease: RateLimitLease, options: ReleaseRateLimitOptions): Promise<boolean> {
    assertReleaseRateLimitOptions(options);
    const { actualTokens, now } = options;
    const open = this.#leases.get(lease.id);
    if (open === undefined) return false;
    this.#forget(open);
    if (open.expiresAt <= now) return false;

    for (const scope of open.scopes) {
      if (scope.tokensPerMinute === undefined) continue;
      const state = this.#stateOf(scope.key);
      correctTokenCharge(state.tokens, open, actualTokens, now);
    }
    return true;
  }

  #stateOf(key: string): ScopeState {
    let state = this.#scopes.get(key);
    if (state === undefined) {
      state = { requests: new Map(), tokens: new Map(), leases: new Map() };
      this.#scopes.set(key, state);
    }
    return state;
  }

  #forget(lease: RateLimitLease): void {
    this.#leases.delete(lease.id);
    for (const scope of lease.scopes) {
      this.#scopes.get(scope.key)?.leases.delete(lease.id);
    }
  }

  /** How many scopes hold state; a scope idle for a whole window holds none. */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /**
   * Forgets every scope with nothing in its window and no open lease, at most once a window: a
   * gateway that served many tokens over its life keeps state only for the ones in use.
   */
  #dropIdleScopes(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + RATE_LIMIT_WINDOW_SECONDS * 1000;
    for (const [key, state] of this.#scopes) {
      pruneBuckets(state.requests, now);
      pruneBuckets(state.tokens, now);
      if (state.requests.size === 0 && state.tokens.size === 0 && state.leases.size === 0) {
        this.#scopes.delete(key);
      }
    }
  }

  #dropExpiredLeases(now: number): void {
    for (const lease of this.#leases.values()) {
      if (lease.expiresAt > now) break;
      this.#forget(lease);
    }
  }
}

function countOpen(leases: Map<string, number>, now: number): number {
  let open = 0;
  for (const expiresAt of leases.values()) if (expiresAt > now) open += 1;
  return open;
}

function countedBuckets(buckets: Buckets, now: number): Array<[number, number]> {
  const oldest = oldestCountedSecond(now);
  return [...buckets].filter(([second]) => second >= oldest);
}

function sumOf(buckets: ReadonlyArray<readonly [number, number]>): number {
  return buckets.reduce((sum, [, amount]) => sum + amount, 0);
}

function pruneBuckets(buckets: Buckets, now: number): void {
  const oldest = oldestCountedSecond(now);
  for (const second of buckets.keys()) {
    if (second < oldest) buckets.delete(second);
  }
}

function addToBucket(buckets: Buckets, second: number, amount: number): void {
  const total = (buckets.get(second) ?? 0) + amount;
  if (total > 0) buckets.set(second, total);
  else buckets.delete(second);
}

/**
 * While the estimate's bucket is still counted, the bucket is corrected in place, so the window
 * holds the real usage for exactly as long as it would have held the estimate. Once that bucket
 * has left the window (a request longer than a minute), an overrun is charged now so real usage is
 * never forgiven; an underrun has nothing left to correct.
 */
function correctTokenCharge(
  buckets: Buckets,
  lease: RateLimitLease,
  actualTokens: number,
  now: number,
): void {
  const difference = actualTokens - lease.estimatedTokens;
  if (difference === 0) return;
  const chargedSecond = windowSecondOf(lease.acquiredAt);
  if (chargedSecond >= oldestCountedSecond(now)) {
    addToBucket(buckets, chargedSecond, difference);
  } else if (difference > 0) {
    pruneBuckets(buckets, now);
    addToBucket(buckets, windowSecondOf(now), difference);
  }
}
