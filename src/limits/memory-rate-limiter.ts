import {
  assertAcquireRateLimitRequest,
  assertReleaseRateLimitOptions,
} from './assert-rate-limit-request.ts';
import {
  RATE_LIMIT_WINDOW_SECONDS,
  secondsUntilBelowLimit,
  windowSecondOf,
} from './rate-limit-window.ts';
import { SecondCounts } from './second-counts.ts';
import { countedAllowance, standingFrom, tighter } from './rate-limit-standing.ts';
import { HeldLeaseHeartbeat } from './held-lease-heartbeat.ts';
import {
  type AcquireRateLimitRequest,
  type RateLimitAllowance,
  type RateLimitDecision,
  type RateLimitLease,
  type RateLimitRefusal,
  type RateLimitStanding,
  type RateLimiter,
  type RateLimiterOptions,
  type ReleaseRateLimitOptions,
} from './rate-limiter.ts';

interface ScopeState {
  requests: SecondCounts;
  tokens: SecondCounts;
  /** Its open leases' ids. */
  leases: Set<string>;
}

/**
 * The embedded limiter (docs/architecture.md): one process, so its limits are exact
 * for that process only. Each method runs to completion without awaiting, which is what makes
 * check-and-charge atomic here.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #heartbeat: HeldLeaseHeartbeat;
  readonly #scopes = new Map<string, ScopeState>();
  /**
   * Open lease id → its current expiry, in admission order. That is also expiry order as long as
   * `now` does not go back: a heartbeat gives every open lease the same new expiry, and a later
   * admission a later one.
   */
  readonly #leases = new Map<string, { lease: RateLimitLease; expiresAt: number }>();
  /** When the next sweep for scopes with nothing left to count is due. */
  #sweepAt = Number.NEGATIVE_INFINITY;
  /** The latest `now` a caller passed: the heartbeat does not revive what it already expired. */
  #lastNow = Number.NEGATIVE_INFINITY;
  /** Lease ids need only be unique within this process, which holds all of its state. */
  #leasesIssued = 0;

  /**
   * The heartbeat keeps the same rules as the Redis limiter (docs/decisions/0020), though here a
   * lease can only outlive its holder when the code forgets to release it: the process owns the
   * state.
   */
  constructor(options: RateLimiterOptions = {}) {
    this.#heartbeat = new HeldLeaseHeartbeat(options, async (leases, expiresAt, now) =>
      this.#renew(leases, expiresAt, now),
    );
  }

  async acquire(request: AcquireRateLimitRequest): Promise<RateLimitDecision> {
    return this.acquireAtOnce(request);
  }

  acquireAtOnce(request: AcquireRateLimitRequest): RateLimitDecision {
    assertAcquireRateLimitRequest(request);
    const { scopes, estimatedTokens, now } = request;
    this.#dropExpiredLeases(now);
    this.#dropIdleScopes(now);

    let refusal: Omit<RateLimitRefusal, 'standing'> | undefined;
    const refuse = (candidate: Omit<RateLimitRefusal, 'standing'>): void => {
      if (refusal === undefined || candidate.retryAfterSeconds > refusal.retryAfterSeconds) {
        refusal = candidate;
      }
    };
    for (const scope of scopes) {
      const state = this.#scopes.get(scope.key);
      if (state === undefined) continue;
      // The totals and the lease count come first; what a refusal needs to say when to retry is
      // worked out only for a refusal.
      if (
        scope.requestsPerMinute !== undefined &&
        state.requests.total(now) >= scope.requestsPerMinute
      ) {
        const counted = state.requests.counted(now);
        const retryAfterSeconds = secondsUntilBelowLimit(counted, scope.requestsPerMinute, now);
        refuse({ ok: false, retryAfterSeconds, limit: 'requests', scopeKey: scope.key });
      }
      if (scope.tokensPerMinute !== undefined && state.tokens.total(now) >= scope.tokensPerMinute) {
        const counted = state.tokens.counted(now);
        const retryAfterSeconds = secondsUntilBelowLimit(counted, scope.tokensPerMinute, now);
        refuse({ ok: false, retryAfterSeconds, limit: 'tokens', scopeKey: scope.key });
      }
      // Open leases are at most the ids the scope holds: fewer ids than the limit admit at once.
      if (scope.concurrentRequests !== undefined && state.leases.size >= scope.concurrentRequests) {
        const expiries = this.#openExpiries(state.leases, now);
        if (expiries.length >= scope.concurrentRequests) {
          // The truth the limiter knows: a slot frees at the latest when the earliest lease
          // expires unrenewed, i.e. when its holder died; a release may free one sooner.
          const retryAfterSeconds = Math.max(1, Math.ceil((Math.min(...expiries) - now) / 1000));
          refuse({ ok: false, retryAfterSeconds, limit: 'concurrency', scopeKey: scope.key });
        }
      }
    }
    if (refusal !== undefined) {
      return { ...refusal, standing: this.#standing(scopes, now) };
    }

    const lease: RateLimitLease = {
      id: `lease-${(this.#leasesIssued += 1)}`,
      scopes: scopes.map((scope) => ({ ...scope })),
      estimatedTokens,
      acquiredAt: now,
      expiresAt: now + this.#heartbeat.leaseTtlMs,
    };
    const second = windowSecondOf(now);
    for (const scope of lease.scopes) {
      const state = this.#stateOf(scope.key);
      if (scope.requestsPerMinute !== undefined) state.requests.add(second, 1, now);
      if (scope.tokensPerMinute !== undefined && estimatedTokens > 0) {
        state.tokens.add(second, estimatedTokens, now);
      }
      if (scope.concurrentRequests !== undefined) state.leases.add(lease.id);
    }
    this.#leases.set(lease.id, { lease, expiresAt: lease.expiresAt });
    this.#heartbeat.hold(lease);
    // Read after the charge: the standing counts this request.
    return { ok: true, lease, standing: this.#standing(lease.scopes, now) };
  }

  /**
   * The scopes' windows as they count at `now`, read straight from their counts: this runs on
   * every admission, so it builds no window objects on the way (rate-limit-standing.ts keeps
   * the rules every adapter shares).
   */
  #standing(scopes: AcquireRateLimitRequest['scopes'], now: number): RateLimitStanding {
    let requests: RateLimitAllowance | undefined;
    let tokens: RateLimitAllowance | undefined;
    for (const scope of scopes) {
      const state = this.#scopes.get(scope.key);
      if (scope.requestsPerMinute !== undefined)
        requests = tighter(requests, allowanceFrom(scope.requestsPerMinute, state?.requests, now));
      if (scope.tokensPerMinute !== undefined)
        tokens = tighter(tokens, allowanceFrom(scope.tokensPerMinute, state?.tokens, now));
    }
    return standingFrom(requests, tokens);
  }

  async release(lease: RateLimitLease, options: ReleaseRateLimitOptions): Promise<boolean> {
    return this.releaseAtOnce(lease, options);
  }

  releaseAtOnce(lease: RateLimitLease, options: ReleaseRateLimitOptions): boolean {
    assertReleaseRateLimitOptions(options);
    const { actualTokens, now } = options;
    const open = this.#leases.get(lease.id);
    if (open === undefined) return false;
    this.#forget(open.lease);
    if (open.expiresAt <= now) return false;

    for (const scope of open.lease.scopes) {
      if (scope.tokensPerMinute === undefined) continue;
      const state = this.#stateOf(scope.key);
      correctTokenCharge(state.tokens, open.lease, actualTokens, now);
    }
    return true;
  }

  close(): void {
    this.#heartbeat.close();
  }

  #renew(leases: RateLimitLease[], expiresAt: number, now: number): string[] {
    const renewed: string[] = [];
    const expiredBefore = Math.max(now, this.#lastNow);
    for (const lease of leases) {
      const open = this.#leases.get(lease.id);
      // A lease past its expiry stays expired: its slot may already be someone else's.
      if (open === undefined || open.expiresAt <= expiredBefore) continue;
      open.expiresAt = Math.max(open.expiresAt, expiresAt);
      renewed.push(lease.id);
    }
    return renewed;
  }

  #openExpiries(leaseIds: Set<string>, now: number): number[] {
    const expiries: number[] = [];
    for (const id of leaseIds) {
      const expiresAt = this.#leases.get(id)?.expiresAt;
      if (expiresAt !== undefined && expiresAt > now) expiries.push(expiresAt);
    }
    return expiries;
  }

  #stateOf(key: string): ScopeState {
    let state = this.#scopes.get(key);
    if (state === undefined) {
      state = { requests: new SecondCounts(), tokens: new SecondCounts(), leases: new Set() };
      this.#scopes.set(key, state);
    }
    return state;
  }

  #forget(lease: RateLimitLease): void {
    this.#leases.delete(lease.id);
    this.#heartbeat.drop(lease.id);
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
      if (
        state.requests.total(now) === 0 &&
        state.tokens.total(now) === 0 &&
        state.leases.size === 0
      ) {
        this.#scopes.delete(key);
      }
    }
  }

  #dropExpiredLeases(now: number): void {
    this.#lastNow = Math.max(this.#lastNow, now);
    for (const open of this.#leases.values()) {
      if (open.expiresAt > now) break;
      this.#forget(open.lease);
    }
  }
}

/** A scope's allowance from its counts; a scope with no state yet has counted nothing. */
function allowanceFrom(
  limit: number,
  counts: SecondCounts | undefined,
  now: number,
): RateLimitAllowance {
  if (counts === undefined) return countedAllowance(limit, 0, undefined, now);
  return countedAllowance(limit, counts.total(now), counts.newest(now), now);
}

/**
 * While the estimate's bucket is still counted, the bucket is corrected in place, so the window
 * holds the real usage for exactly as long as it would have held the estimate. Once that bucket
 * has left the window (a request longer than a minute), an overrun is charged now so real usage is
 * never forgiven; an underrun has nothing left to correct.
 */
function correctTokenCharge(
  counts: SecondCounts,
  lease: RateLimitLease,
  actualTokens: number,
  now: number,
): void {
  const difference = actualTokens - lease.estimatedTokens;
  if (difference === 0) return;
  const chargedSecond = windowSecondOf(lease.acquiredAt);
  if (counts.counts(chargedSecond, now)) {
    counts.add(chargedSecond, difference, now);
  } else if (difference > 0) {
    counts.add(windowSecondOf(now), difference, now);
  }
}
