import { describe, expect, it } from 'vitest';

import { randomHex } from './random-hex.ts';

describe('randomHex', () => {
  it('gives the asked number of bytes as hex, different every time, across refills', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) {
      const text = randomHex(12);
      expect(text).toMatch(/^[0-9a-f]{24}$/);
      seen.add(text);
    }
    expect(seen.size).toBe(2_000);
  });

  it('refuses more bytes than its pool holds', () => {
    expect(() => randomHex(10_000)).toThrow(RangeError);
  });
});
