import type { TokenView } from '../api-types.ts';
import { creditsOfMicro, showCredits, showTime } from '../format-values.ts';

/** A token's budget: spent and remaining this period, and when it resets. */
export function BudgetCell(props: { token: TokenView }) {
  const { budget, budget_standing: standing } = props.token;
  if (budget === null) return <span class="muted">None</span>;
  const amount = showCredits(creditsOfMicro(budget.amount));
  if (standing === undefined || standing === null) {
    return (
      <span>
        {amount} {budget.period}
      </span>
    );
  }
  return (
    <span>
      {showCredits(standing.spent)} of {amount} {budget.period} spent,{' '}
      <strong>{showCredits(standing.remaining)} left</strong>
      {standing.resets_at !== null && (
        <span class="muted"> (resets {showTime(standing.resets_at)})</span>
      )}
    </span>
  );
}
