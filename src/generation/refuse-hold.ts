import type { Balance } from '../billing/credit-ledger.ts';
import { microPerCredit } from '../billing/micro-credits.ts';
import { ApiError } from '../canonical/generation-error.ts';

/**
 * Seconds a client refused for reserved credits is asked to wait: holds of calls in flight are
 * settled when those calls end, most within a few seconds.
 */
const reservedRetryAfterSeconds = 1;

/**
 * The 402 for a hold of `amount` micro-credits the available balance did not cover
 * (docs/decisions/0101): `credits_reserved` with `retry-after` when the balance itself would
 * cover it and only the holds of requests in flight stand in the way, `insufficient_credits`
 * when it would not even then. `what` names what is paid for ("this request", "this search");
 * `remedy` ends the message ("Lower max tokens or add credits.").
 */
export function refuseHold(
  balance: Balance,
  amount: number,
  what: string,
  remedy: string,
): ApiError {
  const details = {
    required_micro: amount,
    available_micro: Math.max(0, balance.available),
    reserved_micro: balance.held,
  };
  if (balance.balance >= amount) {
    return new ApiError(
      'credits_reserved',
      `The credits balance is reserved by requests in flight: ${what} may cost up to ${formatCredits(amount)} credits, and of the balance of ${formatCredits(balance.balance)}, ${formatCredits(balance.held)} are held for requests not finished yet. Retry after they finish.`,
      { retryAfter: reservedRetryAfterSeconds, details },
    );
  }
  return new ApiError(
    'insufficient_credits',
    `The credits balance cannot cover ${what}: it may cost up to ${formatCredits(amount)} credits and ${formatCredits(Math.max(0, balance.available))} are available. ${remedy}`,
    { details },
  );
}

function formatCredits(micro: number): string {
  return (Math.max(0, micro) / microPerCredit).toFixed(6);
}
