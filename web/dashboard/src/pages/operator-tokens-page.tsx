import { useState } from 'preact/hooks';
import { callApi, queryString } from '../api-client.ts';
import type { Page as ListPage, TokenView } from '../api-types.ts';
import { LoadState, Page, TableScroll } from '../components/page.tsx';
import { BudgetCell } from '../components/budget-cell.tsx';
import { showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

/** Operators: find a token of any account by name or id prefix (never a secret). */
export function OperatorTokensPage() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<string | undefined>();
  const tokens = useLoad(
    () =>
      search === undefined
        ? Promise.resolve(undefined)
        : callApi<ListPage<TokenView>>(
            'GET',
            `/api/dashboard/admin/tokens${queryString({ q: search })}`,
          ),
    String(search),
  );
  return (
    <Page title="Token search">
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(query.trim());
        }}
      >
        <label>
          Token name or id prefix
          <input
            type="search"
            value={query}
            onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      {search !== undefined && <LoadState loading={tokens.loading} error={tokens.error} />}
      {tokens.data !== undefined && tokens.data.data.length === 0 && (
        <p class="muted">No token matches.</p>
      )}
      {tokens.data !== undefined && tokens.data.data.length > 0 && (
        <TableScroll label="Tokens found">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Account</th>
                <th scope="col">Interface</th>
                <th scope="col">Status</th>
                <th scope="col">Budget</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.data.map((token) => (
                <tr key={token.id}>
                  <th scope="row">{token.name}</th>
                  <td>
                    <code>{token.id}</code>
                  </td>
                  <td>
                    <code>{token.accountId}</code>
                  </td>
                  <td>{token.interface}</td>
                  <td>{token.disabledAt === null ? 'Active' : 'Disabled'}</td>
                  <td>
                    <BudgetCell token={token} />
                  </td>
                  <td>{showTime(token.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Page>
  );
}
