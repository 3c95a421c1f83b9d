import { describe, expect, it } from 'vitest';
import { usageFromParts } from '../canonical/usage.ts';
import { parseCredits, formatCredits } from './micro-credits.ts';
import { priceUsage, priceWorstCase, toPriceTable } from './price-table.ts';

const sonnet = toPriceTable({
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite5m: 3.75,
  cacheWrite1h: 6,
});

describe('pricing in micro-credits', () => {
  it('prices each kind of token once at its own rate', () => {
    const usage = usageFromParts({
      noCache: 1_000,
      cacheRead: 10_000,
      cacheWrite5m: 2_000,
      cacheWrite1h: 500,
      output: 300,
    });
    // 1000×3 + 10000×0.3 + 2000×3.75 + 500×6 + 300×15 = 3000+3000+7500+3000+4500 = 21000 µ
    expect(priceUsage(usage, sonnet)).toBe(21_000);
  });

  it('rounds the total up once, never per kind', () => {
    const cheap = toPriceTable({ input: 0.1, output: 0.4 });
    expect(priceUsage(usageFromParts({ noCache: 3, output: 1 }), cheap)).toBe(1); // 0.3 + 0.4 → 1
    expect(priceUsage(usageFromParts({ noCache: 0, output: 0 }), cheap)).toBe(0);
  });

  it('charges cache reads at the input price when no discount is configured', () => {
    const table = toPriceTable({ input: 2, output: 8 });
    expect(priceUsage(usageFromParts({ noCache: 0, cacheRead: 1_000_000, output: 0 }), table)).toBe(
      2_000_000,
    );
  });

  it('bounds the worst case by the dearest input rate and the output cap', () => {
    expect(priceWorstCase(1_000, 100, sonnet)).toBe(1_000 * 6 + 100 * 15);
  });

  it('holds the prompt at the input rate where the upstream bills no cache writes', () => {
    expect(priceWorstCase(1_000, 100, sonnet, false)).toBe(1_000 * 3 + 100 * 15);
  });

  it('stays exact for prices that are not exact binary fractions', () => {
    const table = toPriceTable({ input: 0.15, output: 0.6 });
    expect(table.input).toBe(150_000);
    expect(priceUsage(usageFromParts({ noCache: 1_000_000, output: 1_000_000 }), table)).toBe(
      750_000,
    );
  });
});

describe('credit amounts', () => {
  it('parses decimals exactly and refuses anything else', () => {
    expect(parseCredits('10')).toBe(10_000_000);
    expect(parseCredits('-2.5')).toBe(-2_500_000);
    expect(parseCredits('0.000001')).toBe(1);
    expect(parseCredits('0.1')).toBe(100_000);
    expect(parseCredits('1.0000001')).toBeUndefined();
    expect(parseCredits('1e3')).toBeUndefined();
    expect(parseCredits('')).toBeUndefined();
  });

  it('formats micro-credits back without float error', () => {
    expect(formatCredits(12_499_999)).toBe('12.499999');
    expect(formatCredits(-1)).toBe('-0.000001');
  });
});
