/**
 * The rate-limiter port (docs/architecture.md). A request is limited per token and per
 * account at once: the caller passes one scope for each, and the limiter admits the request only
 * when every scope admits it, charging all of them or none. Time is always the caller's `now`
 * (epoch milliseconds), so adapters stay deterministic under test and every gateway process
 * sharing one store agrees on the window.
 */

/** A limited subject (a token, an account). An absent limit is unlimited. */
export interface RateLimitScope {
  key: string;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  concurrentRequests?: number;
}

export type RateLimitKind = 'requests' | 'tokens' | 'concurrency';

export interface AcquireRateLimitRequest {
  scopes: readonly RateLimitScope[];
  /** Counted against every scope's tokens-per-minute on admit; corrected on release. */
  estimatedTokens: number;
  now: number;
}

/**
 * What an admitted request holds until it ends. Plain data (it may be logged or passed between
 * modules); the adapter keeps its own record of which leases are open.
 */
export interface RateLimitLease {
  readonly id: string;
  /** The scopes as they were when the request was admitted. */
  readonly scopes: readonly RateLimitScope[];
  readonly estimatedTokens: number;
  readonly acquiredAt: number;
  /**
   * When the lease would be gone on its own, as admitted: while it is held, the limiter's
   * heartbeat pushes its expiry on (docs/decisions/0020), so only a dead holder's lease reaches it.
   */
  readonly expiresAt: number;
}

/**
 * Where one per-minute limit stands for a request, as the client is told it
 * (docs/decisions/0149): the limit, what is left of it in the window, and when the window will
 * have emptied of everything counted so far.
 */
export interface RateLimitAllowance {
  limit: number;
  /** The limit less what the window counts, this request's own charge included; never below 0. */
  remaining: number;
  /** Milliseconds until the newest counted charge leaves the window; 0 when it counts nothing. */
  resetMs: number;
}

/**
 * The tighter of the scopes' allowances, per kind: the one with the fewest remaining (on a tie,
 * the later reset). A kind no scope limits is absent.
 */
export interface RateLimitStanding {
  requests?: RateLimitAllowance;
  tokens?: RateLimitAllowance;
}

export interface RateLimitRefusal {
  ok: false;
  /** Integer ≥ 1; docs/api.md: the 429 `retry-after` header. */
  retryAfterSeconds: number;
  limit: RateLimitKind;
  scopeKey: string;
  /** The scopes' state as the refusal found it (nothing was charged). */
  standing: RateLimitStanding;
}

export interface RateLimitAdmission {
  ok: true;
  lease: RateLimitLease;
  /** The scopes' state just after this request was charged, read in the same step. */
  standing: RateLimitStanding;
}

export type RateLimitDecision = RateLimitAdmission | RateLimitRefusal;

export interface ReleaseRateLimitOptions {
  /** The tokens the request really used; replaces the estimate in the window. */
  actualTokens: number;
  now: number;
}

export interface RateLimiter {
  /**
   * Admits the request when every scope is below each of its limits, and then charges one request,
   * `estimatedTokens` and one concurrency slot to each limited scope, atomically. A refusal
   * changes nothing and names the limit that frees last.
   */
  acquire(request: AcquireRateLimitRequest): Promise<RateLimitDecision>;
  /**
   * Frees the lease's concurrency slots and replaces its estimate by `actualTokens`. Returns false
   * and changes nothing when the lease is no longer open (already released, or expired).
   */
  release(lease: RateLimitLease, options: ReleaseRateLimitOptions): Promise<boolean>;
  /**
   * `acquire` and `release` decided at once, for a limiter whose state is this process's own
   * (the embedded one): the request path then spends no turn of the event loop on them. They
   * throw where the others reject.
   */
  acquireAtOnce?(request: AcquireRateLimitRequest): RateLimitDecision;
  releaseAtOnce?(lease: RateLimitLease, options: ReleaseRateLimitOptions): boolean;
  /**
   * Stops the heartbeat that keeps this process's open leases alive (shutdown). Leases still open
   * then expire within the lease TTL, as a crashed process's would.
   */
  close(): void;
}

/**
 * How long a lease outlives its holder's last heartbeat (docs/decisions/0020): a crashed process's
 * concurrency slots come back within seconds, while a heartbeat every third of it can miss a beat
 * (a busy event loop, a slow store) without losing a lease that is still in use.
 */
export const DEFAULT_RATE_LIMIT_LEASE_TTL_MS = 15_000;

export interface RateLimiterOptions {
  leaseTtlMs?: number;
  /** How often the open leases are renewed; a third of the TTL unless set. */
  heartbeatMs?: number;
  /** The heartbeat's clock (acquire and release take the caller's `now`). */
  clock?: () => number;
  /** A renewal that failed (the store unreachable); the next beat tries again. */
  onHeartbeatError?: (error: unknown) => void;
}
