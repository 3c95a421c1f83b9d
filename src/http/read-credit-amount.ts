import { formatCredits, parseCredits } from '../billing/micro-credits.ts';
import { ApiError } from '../canonical/generation-error.ts';

/** An operator's credit amount in micro-credits; 400 naming the rule for anything else. */
export function readCreditAmount(text: string): number {
  const amount = parseCredits(text);
  if (amount === undefined) {
    throw new ApiError(
      'invalid_request',
      `amount must be a decimal number of credits with at most 6 decimals and at most ${formatCredits(Number.MAX_SAFE_INTEGER)} in size.`,
    );
  }
  return amount;
}
