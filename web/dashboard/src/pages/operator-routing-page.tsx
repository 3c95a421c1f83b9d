import { callApi } from '../api-client.ts';
import type { RoutingOverview } from '../api-types.ts';
import { LoadState, Page, TableScroll } from '../components/page.tsx';
import { showNumber, showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

/** The total, and each class that failed: "3 (rate_limited 2, server_error 1)". */
function showFailures(failures: Record<string, number>): string {
  const failed = Object.entries(failures).filter(([, count]) => count > 0);
  const total = failed.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return '0';
  return `${showNumber(total)} (${failed.map(([name, count]) => `${name} ${count}`).join(', ')})`;
}

/** Operators: each model's deployments and keys, and whether the router is using them. */
export function OperatorRoutingPage() {
  const routing = useLoad(
    () => callApi<RoutingOverview>('GET', '/api/dashboard/admin/routing'),
    'routing',
  );
  return (
    <Page title="Routing health">
      <button type="button" class="secondary" onClick={routing.reload}>
        Refresh
      </button>
      <LoadState loading={routing.loading} error={routing.error} />
      {routing.data !== undefined && (
        <TableScroll label="Deployments and keys">
          <table data-testid="routing-table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Deployment</th>
                <th scope="col">Key</th>
                <th scope="col">State</th>
                <th scope="col">Until</th>
                <th scope="col">In flight</th>
                <th scope="col">Calls</th>
                <th scope="col">Failures</th>
                <th scope="col">First byte</th>
              </tr>
            </thead>
            <tbody>
              {routing.data.models.flatMap((model) =>
                model.targets.map((target) => (
                  <tr key={`${model.id} ${target.id}`}>
                    <th scope="row">{model.id}</th>
                    <td>{target.deployment}</td>
                    <td>
                      <code>{target.key_id}</code>
                    </td>
                    <td>
                      <span class={`badge state-${target.state}`}>{target.state}</span>
                    </td>
                    <td>{target.until === null ? '' : showTime(target.until)}</td>
                    <td class="number">{showNumber(target.in_flight)}</td>
                    <td class="number">{showNumber(target.counters.calls)}</td>
                    <td class="number">{showFailures(target.counters.failures)}</td>
                    <td class="number">
                      {target.ttfb_ms === null ? '' : `${showNumber(target.ttfb_ms)} ms`}
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Page>
  );
}
