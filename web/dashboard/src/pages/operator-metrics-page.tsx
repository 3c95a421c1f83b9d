import { callApi } from '../api-client.ts';
import type { GatewayMetrics } from '../api-types.ts';
import { LoadState, Page } from '../components/page.tsx';
import {
  creditsOfMicro,
  showBytes,
  showCredits,
  showDuration,
  showNumber,
} from '../format-values.ts';
import { useLoad } from '../use-load.ts';

/** Operators: the gateway process's main counters since it started. */
export function OperatorMetricsPage() {
  const metrics = useLoad(
    () => callApi<GatewayMetrics>('GET', '/api/dashboard/admin/metrics'),
    'metrics',
  );
  const data = metrics.data;
  return (
    <Page title="Metrics">
      <p class="muted">This gateway process since it started.</p>
      <button type="button" class="secondary" onClick={metrics.reload}>
        Refresh
      </button>
      <LoadState loading={metrics.loading} error={metrics.error} />
      {data !== undefined && (
        <>
          <dl class="stats">
            {Object.entries(data.requests).map(([name, count]) => (
              <div class="stat" key={name}>
                <dt>Requests {name}</dt>
                <dd>{showNumber(count)}</dd>
              </div>
            ))}
            <div class="stat">
              <dt>In flight</dt>
              <dd>{showNumber(data.in_flight)}</dd>
            </div>
            <div class="stat">
              <dt>Input tokens</dt>
              <dd>{showNumber(data.tokens.input)}</dd>
            </div>
            <div class="stat">
              <dt>Cached input tokens</dt>
              <dd>{showNumber(data.tokens.cached)}</dd>
            </div>
            <div class="stat">
              <dt>Output tokens</dt>
              <dd>{showNumber(data.tokens.output)}</dd>
            </div>
            <div class="stat">
              <dt>Credits charged</dt>
              <dd>{showCredits(creditsOfMicro(data.cost_micro))}</dd>
            </div>
            <div class="stat">
              <dt>Up for</dt>
              <dd>{showDuration(data.uptime_s)}</dd>
            </div>
            <div class="stat">
              <dt>Resident memory</dt>
              <dd>{showBytes(data.rss_bytes)}</dd>
            </div>
          </dl>
        </>
      )}
    </Page>
  );
}
