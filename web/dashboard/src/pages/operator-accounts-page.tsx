import { useState } from 'preact/hooks';
import { callApi, describeFailure, queryString } from '../api-client.ts';
import type { AccountRow, LedgerEntry, Page as ListPage } from '../api-types.ts';
import { LoadState, Notice, Page, TableScroll } from '../components/page.tsx';
import { showCredits, showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

/** Operators: find an account, see its balance, grant or adjust credits, read its ledger. */
export function OperatorAccountsPage() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [round, setRound] = useState(0);
  const [chosen, setChosen] = useState<string | undefined>();
  const accounts = useLoad(
    () =>
      callApi<ListPage<AccountRow>>(
        'GET',
        `/api/dashboard/admin/accounts${queryString({ q: search })}`,
      ),
    `${search} ${round}`,
  );
  const account = accounts.data?.data.find((row) => row.id === chosen);
  return (
    <Page title="Accounts">
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(query.trim());
        }}
      >
        <label>
          Name or id
          <input
            type="search"
            value={query}
            onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <LoadState loading={accounts.loading} error={accounts.error} />
      {accounts.data !== undefined && accounts.data.data.length === 0 && (
        <p class="muted">No account matches.</p>
      )}
      {accounts.data !== undefined && accounts.data.data.length > 0 && (
        <TableScroll label="Accounts">
          <table data-testid="accounts-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Available</th>
                <th scope="col">Balance</th>
                <th scope="col">Operator</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((row) => (
                <tr key={row.id}>
                  <th scope="row">{row.name}</th>
                  <td>
                    <code>{row.id}</code>
                  </td>
                  <td class="number">{showCredits(row.balance.available)}</td>
                  <td class="number">{showCredits(row.balance.balance)}</td>
                  <td>{row.is_admin ? 'Yes' : 'No'}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Manage ${row.name}`}
                      onClick={() => setChosen(row.id)}
                    >
                      Manage
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {account !== undefined && (
        <AccountCredits
          key={account.id}
          account={account}
          onChanged={() => setRound((value) => value + 1)}
        />
      )}
    </Page>
  );
}

function AccountCredits(props: { account: AccountRow; onChanged: () => void }) {
  const { account } = props;
  const [kind, setKind] = useState<'grant' | 'adjust'>('grant');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [allowNegative, setAllowNegative] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'error' | 'success'; text: string }>();
  const ledger = useLoad(
    () =>
      callApi<ListPage<LedgerEntry>>(
        'GET',
        `/api/dashboard/admin/accounts/${encodeURIComponent(account.id)}/ledger?limit=50`,
      ),
    `${account.id} ${account.balance.balance_micro}`,
  );
  const submit = async () => {
    setBusy(true);
    setOutcome(undefined);
    try {
      await callApi(
        'POST',
        `/api/dashboard/admin/accounts/${encodeURIComponent(account.id)}/credits`,
        {
          kind,
          amount: amount.trim(),
          reason: reason.trim(),
          ...(kind === 'adjust' && allowNegative ? { allow_negative: true } : {}),
        },
      );
      setOutcome({
        kind: 'success',
        text: `${kind === 'grant' ? 'Granted' : 'Adjusted by'} ${amount.trim()} credits.`,
      });
      setAmount('');
      setReason('');
      props.onChanged();
    } catch (error) {
      setOutcome({ kind: 'error', text: describeFailure(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="account-credits-title">
      <h2 id="account-credits-title">Credits of {account.name}</h2>
      <p>
        Available <strong>{showCredits(account.balance.available)}</strong>, balance{' '}
        {showCredits(account.balance.balance)}, held {showCredits(account.balance.held)}.
      </p>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label>
          Kind
          <select
            value={kind}
            onChange={(event) =>
              setKind((event.target as HTMLSelectElement).value as 'grant' | 'adjust')
            }
          >
            <option value="grant">Grant</option>
            <option value="adjust">Adjust (may be negative)</option>
          </select>
        </label>
        <label>
          Credits
          <input
            type="text"
            inputMode="decimal"
            required
            pattern={kind === 'grant' ? '[0-9]+(\\.[0-9]{1,6})?' : '-?[0-9]+(\\.[0-9]{1,6})?'}
            value={amount}
            onInput={(event) => setAmount((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Reason
          <input
            type="text"
            required
            maxLength={500}
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
        </label>
        {kind === 'adjust' && (
          <label class="checkbox">
            <input
              type="checkbox"
              checked={allowNegative}
              onChange={(event) => setAllowNegative((event.target as HTMLInputElement).checked)}
            />
            May take the balance below zero
          </label>
        )}
        <button type="submit" disabled={busy}>
          {kind === 'grant' ? 'Grant credits' : 'Adjust credits'}
        </button>
      </form>
      {outcome !== undefined && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
      <h3>Ledger</h3>
      <LoadState loading={ledger.loading} error={ledger.error} />
      {ledger.data !== undefined && (
        <TableScroll label="Ledger">
          <table data-testid="ledger-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Credits</th>
                <th scope="col">Reason</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.data.map((entry) => (
                <tr key={entry.id}>
                  <td>{showTime(entry.createdAt)}</td>
                  <td>{entry.kind}</td>
                  <td class="number">{showCredits(entry.amount)}</td>
                  <td>{entry.reason}</td>
                  <td>{entry.requestId === null ? '' : <code>{entry.requestId}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
