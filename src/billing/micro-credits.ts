/**
 * Integer micro-credits (docs/architecture.md): 1 credit = 1 000 000 micro-credits. Never floats.
 */
export const microPerCredit = 1_000_000;

/**
 * Parses a decimal credit amount ("10", "-2.5", "0.000001") into micro-credits exactly, without
 * passing through a float. Returns undefined for anything else, including an amount past
 * Number.MAX_SAFE_INTEGER micro-credits (about 9 007 million credits), which no number holds
 * exactly.
 */
export function parseCredits(text: string): number | undefined {
  const match = /^(-?)(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const micro = BigInt(whole as string) * BigInt(microPerCredit) + BigInt(fraction.padEnd(6, '0'));
  if (micro > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return sign === '-' ? -Number(micro) : Number(micro);
}

/** Renders micro-credits as a decimal credit amount with six places, exactly. */
export function formatCredits(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const absolute = Math.abs(micro);
  const whole = Math.floor(absolute / microPerCredit);
  const fraction = String(absolute % microPerCredit).padStart(6, '0');
  return `${sign}${whole}.${fraction}`;
}

/**
 * docs/architecture.md: money is integer micro-credits, never floats. Throws a RangeError
 * otherwise.
 */
export function assertMicroCredits(
  value: number,
  what: string,
  options: { allowNegative: boolean },
): void {
  if (!Number.isSafeInteger(value) || (!options.allowNegative && value < 0)) {
    throw new RangeError(
      `${what} must be a${options.allowNegative ? 'n' : ' non-negative'} integer number of micro-credits, got ${value}`,
    );
  }
}
