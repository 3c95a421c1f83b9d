/**
 * A distribution-free confidence interval for the median of paired ratios (one per slice of
 * `bench:compare`): the k-th smallest and k-th largest of n values, with k the largest for which
 * the chance that the median lies outside is at most 1 − confidence (each value falls on either
 * side of the true median with probability ½, so the count below it is Binomial(n, ½)).
 * Undefined when n is too small for the confidence asked (8 slices give at most 99.2%).
 */
export function medianInterval(
  values: readonly number[],
  confidence = 0.9,
): { low: number; high: number; coverage: number } | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let chosen: { k: number; coverage: number } | undefined;
  // The interval [x(k), x(n−k+1)] misses the median when fewer than k values lie below it or
  // fewer than k above it: twice the lower tail P(B < k).
  let tail = 0;
  for (let k = 1; 2 * k <= n; k++) {
    tail += binomialHalf(n, k - 1);
    const coverage = 1 - 2 * tail;
    if (coverage < confidence) break;
    chosen = { k, coverage };
  }
  if (chosen === undefined) return undefined;
  return {
    low: sorted[chosen.k - 1] as number,
    high: sorted[n - chosen.k] as number,
    coverage: chosen.coverage,
  };
}

/** P(B = i) for B ~ Binomial(n, ½). */
function binomialHalf(n: number, i: number): number {
  let choose = 1;
  for (let j = 1; j <= i; j++) choose = (choose * (n - i + j)) / j;
  return choose / 2 ** n;
}
