import { describe, expect, it } from 'vitest';

import { affordOutputTokens } from './afford-output-tokens.ts';
import { priceWorstCase, toPriceTable } from './price-table.ts';

const prices = toPriceTable({ input: 3, output: 15, cacheWrite1h: 6 });

describe('affordOutputTokens (docs/decisions/0100)', () => {
  it('finds the largest output limit whose worst case the balance covers', () => {
    for (const available of [0, 1, 599, 600, 615, 616, 10_000, 123_457]) {
      const limit = affordOutputTokens(available, 100, 8_192, prices);
      if (limit < 0) {
        expect(priceWorstCase(100, 0, prices)).toBeGreaterThan(available);
        continue;
      }
      expect(priceWorstCase(100, limit, prices)).toBeLessThanOrEqual(available);
      if (limit < 8_192) expect(priceWorstCase(100, limit + 1, prices)).toBeGreaterThan(available);
    }
  });

  it('never answers more than the call asked for', () => {
    expect(affordOutputTokens(1_000_000_000, 10, 4_096, prices)).toBe(4_096);
  });

  it('answers -1 when not even the prompt fits', () => {
    // 100 tokens at the dearest input rate (6 µ): 600 µ.
    expect(affordOutputTokens(599, 100, 8_192, prices)).toBe(-1);
    expect(affordOutputTokens(600, 100, 8_192, prices)).toBe(0);
  });
});
