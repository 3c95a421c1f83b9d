import { describe, expect, it } from 'vitest';

import { oldestCountedSecond } from './rate-limit-window.ts';
import { SecondCounts } from './second-counts.ts';

const T = 1_700_000_000_000;
const at = (seconds: number) => T + seconds * 1000;
const second = (seconds: number) => T / 1000 + seconds;

describe('SecondCounts', () => {
  it('counts a second for a whole window and then lets it go', () => {
    const counts = new SecondCounts();
    counts.add(second(0), 3, at(0));
    counts.add(second(10), 4, at(10));
    expect(counts.total(at(10))).toBe(7);
    expect(counts.total(at(59.9))).toBe(7);
    // Second 0 leaves when second 60 starts; second 10 stays until second 70.
    expect(counts.total(at(60))).toBe(4);
    expect(counts.counts(second(0), at(60))).toBe(false);
    expect(counts.counts(second(10), at(60))).toBe(true);
    expect(counts.total(at(70))).toBe(0);
  });

  it('forgets everything after a jump longer than the window', () => {
    const counts = new SecondCounts();
    counts.add(second(0), 5, at(0));
    counts.add(second(30), 6, at(30));
    expect(counts.total(at(500))).toBe(0);
    expect(counts.counted(at(500))).toEqual([]);
    // The slot second 0 used is free for the second that falls on it now.
    counts.add(second(540), 2, at(540));
    expect(counts.total(at(540))).toBe(2);
  });

  it('empties a count a correction takes to zero or below, and leaves the rest', () => {
    const counts = new SecondCounts();
    counts.add(second(0), 10, at(0));
    counts.add(second(1), 5, at(1));
    counts.add(second(0), -4, at(2));
    expect(counts.total(at(2))).toBe(11);
    counts.add(second(0), -50, at(2));
    expect(counts.total(at(2))).toBe(5);
    expect(counts.counted(at(2))).toEqual([[second(1), 5]]);
    // A correction of a second holding nothing adds nothing.
    counts.add(second(3), -7, at(3));
    expect(counts.total(at(3))).toBe(5);
  });

  it('does not bring back a second once the clock went past it, nor charge one', () => {
    const counts = new SecondCounts();
    counts.add(second(0), 8, at(0));
    expect(counts.total(at(61))).toBe(0);
    // The clock steps back: second 0 stays gone, and a charge to it is not counted.
    expect(counts.total(at(30))).toBe(0);
    counts.add(second(0), 1, at(30));
    expect(counts.total(at(30))).toBe(0);
    counts.add(second(30), 2, at(30));
    expect(counts.total(at(61))).toBe(2);
  });

  it('agrees with a plain per-second sum, and its newest second, over a long random run', () => {
    // A reference: every charge kept, summed over the seconds the window counts.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const counts = new SecondCounts();
    const reference = new Map<number, number>();
    let now = T;
    for (let step = 0; step < 20_000; step++) {
      // Mostly small steps, now and then a long pause.
      now += random() < 0.01 ? Math.floor(random() * 150_000) : Math.floor(random() * 900);
      const current = Math.floor(now / 1000);
      const oldest = oldestCountedSecond(now);
      const back = Math.floor(random() * 70);
      const target = random() < 0.8 ? current : current - back;
      const amount = random() < 0.7 ? Math.ceil(random() * 100) : -Math.ceil(random() * 100);
      if (target >= oldest) {
        const next = (reference.get(target) ?? 0) + amount;
        if (next > 0) reference.set(target, next);
        else reference.delete(target);
      }
      counts.add(target, amount, now);
      let expected = 0;
      let newest: number | undefined;
      for (const [counted, value] of reference) {
        if (counted >= oldest) {
          expected += value;
          newest = Math.max(newest ?? counted, counted);
        } else reference.delete(counted);
      }
      expect(counts.total(now)).toBe(expected);
      expect(counts.newest(now)).toBe(newest);
    }
    expect(reference.size).toBeGreaterThan(0);
  });
});
