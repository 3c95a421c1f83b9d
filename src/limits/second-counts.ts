import { RATE_LIMIT_WINDOW_SECONDS, oldestCountedSecond } from './rate-limit-window.ts';

/**
 * One scope's amounts per second over the sliding window (rate-limit-window.ts), in one slot per
 * second of the window, with their total kept as they change. Reading the counted total is one
 * field, and a second leaves the total once, when the clock passes it, instead of every admission
 * walking the window's sixty buckets to sum and prune them (the embedded limiter's largest cost
 * per request in the benchmark's profile).
 *
 * A second is counted from its own until it is a whole window old, as in every adapter. The clock
 * only moves the window forward: a `now` earlier than one already seen neither brings back a
 * second that has left nor lets a charge into one (a clock set back by more than a window).
 */
export class SecondCounts {
  /** The second each slot holds (slot = second mod the window), or -Infinity when empty. */
  readonly #seconds = new Float64Array(RATE_LIMIT_WINDOW_SECONDS).fill(Number.NEGATIVE_INFINITY);
  readonly #amounts = new Float64Array(RATE_LIMIT_WINDOW_SECONDS);
  #total = 0;
  /**
   * The newest second holding an amount, kept as charges arrive so an admission can say when the
   * window empties without walking it; only looked up again when that second's slot is emptied.
   */
  #newest = Number.NEGATIVE_INFINITY;
  /** Every second before this one has left the total. */
  #oldest = Number.NEGATIVE_INFINITY;

  /** The sum over the seconds still counted at `now`. */
  total(now: number): number {
    this.#expire(now);
    return this.#total;
  }

  /**
   * Adds `amount` (negative to correct an estimate) to `second`'s count; a count that would go
   * to zero or below is emptied, as a bucket never holds less than nothing.
   */
  add(second: number, amount: number, now: number): void {
    this.#expire(now);
    if (second < this.#oldest) return;
    const slot = slotOf(second);
    // A slot holds one second of the window; any other it still held has left it.
    if (this.#seconds[slot] !== second) this.#empty(slot);
    const held = this.#amounts[slot] as number;
    const next = held + amount;
    if (next > 0) {
      this.#seconds[slot] = second;
      this.#amounts[slot] = next;
      this.#total += next - held;
      if (second > this.#newest) this.#newest = second;
    } else {
      this.#empty(slot);
    }
  }

  /**
   * The newest second still counted at `now`, or undefined when nothing is. Once the newest has
   * left the window every older second has too, so an empty total answers without a lookup.
   */
  newest(now: number): number | undefined {
    this.#expire(now);
    if (this.#total <= 0) return undefined;
    return this.#newest === Number.NEGATIVE_INFINITY ? undefined : this.#newest;
  }

  /** True when `second` is still counted at `now`. */
  counts(second: number, now: number): boolean {
    this.#expire(now);
    return second >= this.#oldest;
  }

  /** The counted seconds and their amounts, for working out when a refusal ends. */
  counted(now: number): Array<[number, number]> {
    this.#expire(now);
    const counted: Array<[number, number]> = [];
    for (let slot = 0; slot < RATE_LIMIT_WINDOW_SECONDS; slot++) {
      const second = this.#seconds[slot] as number;
      if (second !== Number.NEGATIVE_INFINITY)
        counted.push([second, this.#amounts[slot] as number]);
    }
    return counted;
  }

  /** Takes out of the total every second that has left the window since the last call. */
  #expire(now: number): void {
    const oldest = oldestCountedSecond(now);
    if (oldest <= this.#oldest) return;
    if (oldest - this.#oldest >= RATE_LIMIT_WINDOW_SECONDS) {
      // The window moved by a whole window or more: whatever a slot holds may have left.
      for (let slot = 0; slot < RATE_LIMIT_WINDOW_SECONDS; slot++) {
        if ((this.#seconds[slot] as number) < oldest) this.#empty(slot);
      }
    } else {
      // Only the seconds between the two window starts can have left: fewer than a window.
      for (let second = this.#oldest; second < oldest; second++) {
        const slot = slotOf(second);
        if (this.#seconds[slot] === second) this.#empty(slot);
      }
    }
    this.#oldest = oldest;
  }

  #empty(slot: number): void {
    const second = this.#seconds[slot] as number;
    if (second === Number.NEGATIVE_INFINITY) return;
    this.#total -= this.#amounts[slot] as number;
    this.#seconds[slot] = Number.NEGATIVE_INFINITY;
    this.#amounts[slot] = 0;
    if (second === this.#newest) this.#newest = newestOf(this.#seconds);
  }
}

/** The largest second a slot holds (a loop: spreading a typed array into Math.max copies it). */
function newestOf(seconds: Float64Array): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (let slot = 0; slot < seconds.length; slot++) {
    const second = seconds[slot] as number;
    if (second > newest) newest = second;
  }
  return newest;
}

function slotOf(second: number): number {
  const slot = second % RATE_LIMIT_WINDOW_SECONDS;
  return slot < 0 ? slot + RATE_LIMIT_WINDOW_SECONDS : slot;
}
