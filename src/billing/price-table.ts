import type { Usage } from '../canonical/usage.ts';

/** Integer micro-credits per million tokens, per kind of token. */
export interface PriceTable {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

/** Credits per million tokens (configuration) → integer micro-credits per million tokens. */
export function toPriceTable(pricing: {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
}): PriceTable {
  const micro = (value: number) => Math.round(value * 1_000_000);
  const input = micro(pricing.input);
  return {
    input,
    output: micro(pricing.output),
    // Without a configured discount a cache read costs what an input token costs.
    cacheRead: pricing.cacheRead === undefined ? input : micro(pricing.cacheRead),
    cacheWrite5m: pricing.cacheWrite5m === undefined ? input : micro(pricing.cacheWrite5m),
    cacheWrite1h: pricing.cacheWrite1h === undefined ? input : micro(pricing.cacheWrite1h),
  };
}

/**
 * The cost of a usage in micro-credits, rounded up once at the end so that no fraction of a
 * micro-credit is lost per kind. Each token is priced exactly once: uncached input, cache reads
 * and cache writes by TTL are disjoint parts of the prompt (src/canonical/usage.ts).
 */
export function priceUsage(usage: Usage, prices: PriceTable): number {
  const { inputTokens, outputTokens } = usage;
  const scaled =
    BigInt(inputTokens.noCache) * BigInt(prices.input) +
    BigInt(inputTokens.cacheRead) * BigInt(prices.cacheRead) +
    BigInt(inputTokens.cacheWrite5m) * BigInt(prices.cacheWrite5m) +
    BigInt(inputTokens.cacheWrite1h) * BigInt(prices.cacheWrite1h) +
    BigInt(outputTokens.total) * BigInt(prices.output);
  const million = 1_000_000n;
  return Number((scaled + million - 1n) / million);
}

/**
 * The dearest rate a prompt token can be priced at: a cache write's where the upstream may write
 * the cache (Anthropic's markers), otherwise the input's or a cache read's (OpenAI's caching
 * writes nothing it bills).
 */
export function dearestPromptRate(prices: PriceTable, writesCache = true): number {
  const read = Math.max(prices.input, prices.cacheRead);
  return writesCache ? Math.max(read, prices.cacheWrite5m, prices.cacheWrite1h) : read;
}

/** The most a call can cost: every input token at the dearest prompt rate, plus the output cap. */
export function priceWorstCase(
  inputTokens: number,
  maxOutputTokens: number,
  prices: PriceTable,
  writesCache = true,
): number {
  const scaled =
    BigInt(inputTokens) * BigInt(dearestPromptRate(prices, writesCache)) +
    BigInt(maxOutputTokens) * BigInt(prices.output);
  const million = 1_000_000n;
  return Number((scaled + million - 1n) / million);
}
