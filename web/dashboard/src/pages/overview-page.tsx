import { callApi } from '../api-client.ts';
import type { Overview, Page as ListPage, TokenView } from '../api-types.ts';
import { LoadState, Page, TableScroll } from '../components/page.tsx';
import { BudgetCell } from '../components/budget-cell.tsx';
import { showCredits, showNumber } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

export function OverviewPage() {
  const overview = useLoad(() => callApi<Overview>('GET', '/api/dashboard/overview'), 'overview');
  const tokens = useLoad(
    () => callApi<ListPage<TokenView>>('GET', '/api/dashboard/tokens'),
    'tokens',
  );
  const budgeted = (tokens.data?.data ?? []).filter((token) => token.budget !== null);
  return (
    <Page title="Overview">
      <LoadState loading={overview.loading} error={overview.error} />
      {overview.data !== undefined && (
        <dl class="stats">
          <div class="stat">
            <dt>Available credits</dt>
            <dd data-testid="available-balance">{showCredits(overview.data.balance.available)}</dd>
          </div>
          <div class="stat">
            <dt>Balance</dt>
            <dd>{showCredits(overview.data.balance.balance)}</dd>
          </div>
          <div class="stat">
            <dt>Held by calls in flight</dt>
            <dd>{showCredits(overview.data.balance.held)}</dd>
          </div>
          <div class="stat">
            <dt>Spent today (UTC)</dt>
            <dd data-testid="spend-today">{showCredits(overview.data.spend_today)}</dd>
          </div>
          <div class="stat">
            <dt>Tokens</dt>
            <dd>{showNumber(overview.data.tokens)}</dd>
          </div>
        </dl>
      )}
      <h2>Budgets</h2>
      <LoadState loading={tokens.loading} error={tokens.error} />
      {tokens.data !== undefined && budgeted.length === 0 && (
        <p class="muted">
          No token has a budget of its own; each may spend the account's whole balance.{' '}
          <a href="/dashboard/tokens">Set one on the tokens page</a>.
        </p>
      )}
      {budgeted.length > 0 && (
        <TableScroll label="Token budgets">
          <table>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Budget</th>
              </tr>
            </thead>
            <tbody>
              {budgeted.map((token) => (
                <tr key={token.id}>
                  <td>{token.name}</td>
                  <td>
                    <BudgetCell token={token} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Page>
  );
}
