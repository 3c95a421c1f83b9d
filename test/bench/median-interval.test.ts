import { describe, expect, it } from 'vitest';

import { medianInterval } from '../../bench/lib/median-interval.ts';

describe('medianInterval', () => {
  it('spans from the k-th smallest to the k-th largest value for the coverage asked', () => {
    const values = [1.08, 0.93, 1.02, 1.11, 0.97, 1.05, 1.0, 1.04];
    // n = 8: k = 2 covers 93.0%, k = 1 covers 99.2%.
    expect(medianInterval(values, 0.9)).toEqual({ low: 0.97, high: 1.08, coverage: 0.9296875 });
    expect(medianInterval(values, 0.95)).toEqual({ low: 0.93, high: 1.11, coverage: 0.9921875 });
  });

  it('narrows as slices are added', () => {
    const sixteen = Array.from({ length: 16 }, (_, index) => 0.9 + index / 100);
    const interval = medianInterval(sixteen, 0.9);
    // n = 16: k = 5 covers 92.3%.
    expect(interval?.low).toBeCloseTo(0.94);
    expect(interval?.high).toBeCloseTo(1.01);
    expect(interval?.coverage).toBeCloseTo(0.9232, 4);
  });

  it('gives no interval when there are too few slices for the coverage', () => {
    expect(medianInterval([1, 2, 3], 0.9)).toBeUndefined();
    expect(medianInterval([1, 2, 3, 4, 5], 0.9)).toEqual({ low: 1, high: 5, coverage: 0.9375 });
  });
});
