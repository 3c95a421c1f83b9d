import {
  DEFAULT_RATE_LIMIT_LEASE_TTL_MS,
  type RateLimitLease,
  type RateLimiterOptions,
} from './rate-limiter.ts';

/**
 * Renews the leases one limiter holds for every request this process has in flight, with one
 * timer per limiter (per process) however many requests run: docs/decisions/0020 wants a crashed
 * process's leases gone within seconds, so they are short-lived and kept alive only by this beat.
 * The timer runs only while a lease is held, and never keeps the process alive.
 */
export class HeldLeaseHeartbeat {
  readonly leaseTtlMs: number;
  readonly #heartbeatMs: number;
  readonly #clock: () => number;
  readonly #renew: (leases: RateLimitLease[], expiresAt: number, now: number) => Promise<string[]>;
  readonly #onError: (error: unknown) => void;
  readonly #held = new Map<string, RateLimitLease>();
  #timer: NodeJS.Timeout | undefined;
  #beating = false;
  #closed = false;

  /**
   * `renew` pushes the given leases' expiry to `expiresAt` and answers the ids of those that were
   * still open; the others (expired, or released by another process) are forgotten.
   */
  constructor(
    options: RateLimiterOptions,
    renew: (leases: RateLimitLease[], expiresAt: number, now: number) => Promise<string[]>,
  ) {
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_RATE_LIMIT_LEASE_TTL_MS;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(this.leaseTtlMs / 3));
    if (!(Number.isSafeInteger(this.leaseTtlMs) && this.leaseTtlMs >= 1)) {
      throw new RangeError('leaseTtlMs must be a positive integer.');
    }
    if (!(Number.isSafeInteger(this.#heartbeatMs) && this.#heartbeatMs < this.leaseTtlMs)) {
      throw new RangeError('heartbeatMs must be a positive integer below leaseTtlMs.');
    }
    this.#clock = options.clock ?? Date.now;
    this.#renew = renew;
    this.#onError = options.onHeartbeatError ?? (() => {});
  }

  hold(lease: RateLimitLease): void {
    if (this.#closed) return;
    this.#held.set(lease.id, lease);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#beat(), this.#heartbeatMs);
      this.#timer.unref();
    }
  }

  drop(leaseId: string): void {
    this.#held.delete(leaseId);
    if (this.#held.size === 0) this.#stopTimer();
  }

  close(): void {
    this.#closed = true;
    this.#held.clear();
    this.#stopTimer();
  }

  get heldCount(): number {
    return this.#held.size;
  }

  async #beat(): Promise<void> {
    // A slow store must not stack renewals: the next beat comes a period after this one ended.
    if (this.#beating || this.#held.size === 0) return;
    this.#beating = true;
    try {
      const leases = [...this.#held.values()];
      const now = this.#clock();
      const open = new Set(await this.#renew(leases, now + this.leaseTtlMs, now));
      for (const lease of leases) if (!open.has(lease.id)) this.drop(lease.id);
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#beating = false;
    }
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
