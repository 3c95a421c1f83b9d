import { useState } from 'preact/hooks';
import { callApi, queryString } from '../api-client.ts';
import type { Page as ListPage, TokenView, UsageRequest } from '../api-types.ts';
import { CursorPager, useCursorStack } from '../components/cursor-pager.tsx';
import { LoadState, Page, TableScroll } from '../components/page.tsx';
import { showCredits, showNumber, showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

interface RequestFilters {
  model: string;
  status: string;
  token: string;
}

const pageSize = 50;

/** The request log, newest first, a page at a time (the cursor the server gives). */
export function RequestsPage() {
  const [filters, setFilters] = useState<RequestFilters>({ model: '', status: '', token: '' });
  const [draft, setDraft] = useState<RequestFilters>(filters);
  const { cursor, cursors, setCursors } = useCursorStack();
  const tokens = useLoad(
    () => callApi<ListPage<TokenView>>('GET', '/api/dashboard/tokens'),
    'tokens',
  );
  const log = useLoad(
    () =>
      callApi<ListPage<UsageRequest>>(
        'GET',
        `/api/dashboard/requests${queryString({ ...filters, limit: pageSize, cursor })}`,
      ),
    JSON.stringify([filters, cursor]),
  );
  const tokenNames = new Map((tokens.data?.data ?? []).map((token) => [token.id, token.name]));
  const update = (name: keyof RequestFilters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value });
  const nextCursor = log.data?.next_cursor ?? null;

  return (
    <Page title="Requests">
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setFilters(draft);
        }}
      >
        <label>
          Model
          <input type="text" value={draft.model} onInput={update('model')} />
        </label>
        <label>
          Status
          <input
            type="text"
            inputMode="numeric"
            pattern="[1-5][0-9][0-9]"
            placeholder="e.g. 200 or 402"
            value={draft.status}
            onInput={update('status')}
          />
        </label>
        <label>
          Token
          <select value={draft.token} onChange={update('token')}>
            <option value="">All tokens</option>
            {(tokens.data?.data ?? []).map((token) => (
              <option key={token.id} value={token.id}>
                {token.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply filters</button>
      </form>
      <LoadState loading={log.loading} error={log.error} />
      {log.data !== undefined && log.data.data.length === 0 && (
        <p class="muted">No requests match.</p>
      )}
      {log.data !== undefined && log.data.data.length > 0 && (
        <TableScroll label="Request log">
          <table data-testid="requests-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Model</th>
                <th scope="col">Token</th>
                <th scope="col">Status</th>
                <th scope="col">Input</th>
                <th scope="col">Output</th>
                <th scope="col">Credits</th>
                <th scope="col">Latency</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {log.data.data.map((record) => (
                <tr key={record.requestId}>
                  <td>{showTime(record.time)}</td>
                  <td>{record.model}</td>
                  <td>{tokenNames.get(record.apiKeyId) ?? record.apiKeyId}</td>
                  <td class="number">{record.status}</td>
                  <td class="number">{showNumber(record.inputTokens)}</td>
                  <td class="number">{showNumber(record.outputTokens)}</td>
                  <td class="number">{showCredits(record.cost)}</td>
                  <td class="number">{showNumber(record.latencyMs)} ms</td>
                  <td>
                    <code>{record.requestId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <CursorPager cursors={cursors} setCursors={setCursors} nextCursor={nextCursor} />
    </Page>
  );
}
