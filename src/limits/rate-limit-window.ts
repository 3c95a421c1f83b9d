/**
 * The sliding window shared by every rate-limiter adapter: per-second buckets over the last 60 s.
 *
 * Why buckets and not a sliding log: a log keeps one entry per admitted request, so a scope with a
 * high requests-per-minute limit costs that many entries and a tokens sum over all of them on
 * every acquire; in Redis that is an O(n) Lua loop on the hot path. Sixty buckets bound both the
 * memory and the work per scope (at most 60 fields to read), and correcting a token estimate on
 * release is one increment of the bucket it was charged to. The price is precision: a charge
 * counts from its second until that second is 60 whole seconds old, so it leaves the window
 * between 59 and 60 s after it was made, never later than a minute. A fixed minute window was
 * rejected because it lets 2× the limit through around the minute boundary.
 *
 * The Redis adapter implements the same rules in Lua (src/store/redis/); the contract suite holds
 * both to them.
 */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

export function windowSecondOf(now: number): number {
  return Math.floor(now / 1000);
}

/** The oldest bucket still counted at `now`. */
export function oldestCountedSecond(now: number): number {
  return windowSecondOf(now) - (RATE_LIMIT_WINDOW_SECONDS - 1);
}

/** A bucket counts until the start of the second that is 60 s after its own. */
export function bucketLeavesWindowAt(second: number): number {
  return (second + RATE_LIMIT_WINDOW_SECONDS) * 1000;
}

/**
 * Whole seconds (≥ 1) until the counted total drops below `limit`, if nothing new is charged:
 * buckets leave oldest first. `buckets` are the counted ones, as [second, amount] pairs.
 */
export function secondsUntilBelowLimit(
  buckets: ReadonlyArray<readonly [number, number]>,
  limit: number,
  now: number,
): number {
  const ordered = [...buckets].sort((left, right) => left[0] - right[0]);
  let remaining = ordered.reduce((sum, [, amount]) => sum + amount, 0);
  for (const [second, amount] of ordered) {
    remaining -= amount;
    if (remaining < limit) {
      return Math.max(1, Math.ceil((bucketLeavesWindowAt(second) - now) / 1000));
    }
  }
  // Only reached when the total was already below the limit; callers never ask then.
  return 1;
}
