import { dearestPromptRate, type PriceTable } from './price-table.ts';

/**
 * The largest output limit, at most `maxOutputTokens`, whose worst case with this prompt
 * (priceWorstCase: the prompt at the dearest input rate, the output at the output rate, rounded
 * up once) the `available` micro-credits cover (docs/decisions/0100); -1 when not even the prompt
 * fits.
 */
export function affordOutputTokens(
  available: number,
  promptTokens: number,
  maxOutputTokens: number,
  prices: PriceTable,
  writesCache = true,
): number {
  const dearestInput = dearestPromptRate(prices, writesCache);
  // ceil(x / 1e6) ≤ available ⇔ x ≤ available × 1e6, for integers.
  const room =
    BigInt(Math.max(0, available)) * 1_000_000n - BigInt(promptTokens) * BigInt(dearestInput);
  if (room < 0n) return -1;
  if (prices.output === 0) return maxOutputTokens;
  const limit = room / BigInt(prices.output);
  return limit >= BigInt(maxOutputTokens) ? maxOutputTokens : Number(limit);
}
