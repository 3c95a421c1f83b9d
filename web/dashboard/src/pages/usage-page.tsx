import { useState } from 'preact/hooks';
import { callApi, queryString } from '../api-client.ts';
import type { UsageGroup, UsageReport } from '../api-types.ts';
import { LoadState, Page, TableScroll } from '../components/page.tsx';
import { TimeChart } from '../components/time-chart.tsx';
import { showCredits, showNumber } from '../format-values.ts';
import { useLoad } from '../use-load.ts';
import { lastDays, periodBounds, periodSteps, type UsagePeriod } from '../usage-period.ts';

/** Axis ticks of small amounts stay apart: 0.00012, 0.00014, … rather than 0.0001 twice. */
const chartCredits = new Intl.NumberFormat('en', { maximumSignificantDigits: 3 });

const presets = [
  { label: 'Today', days: 1 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
];

/** Usage of the account: charts over time per model, a table per model with totals, CSV. */
export function UsagePage() {
  const [period, setPeriod] = useState<UsagePeriod>(() => lastDays(7));
  const [model, setModel] = useState('');
  const bounds = periodBounds(period);
  const key = JSON.stringify(period);
  const overTime = useLoad(
    () =>
      callApi<UsageReport>(
        'GET',
        `/api/dashboard/usage${queryString({ ...bounds, group_by: `model,${period.step}` })}`,
      ),
    key,
  );
  const perModel = useLoad(
    () =>
      callApi<UsageReport>(
        'GET',
        `/api/dashboard/usage${queryString({ ...bounds, group_by: 'model' })}`,
      ),
    key,
  );
  const csvHref = `/api/dashboard/usage${queryString({
    ...bounds,
    group_by: `model,${period.step}`,
    format: 'csv',
  })}`;
  const models = (perModel.data?.data ?? []).map((group) => group.model ?? '');

  return (
    <Page title="Usage">
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <fieldset class="presets">
          <legend>Period</legend>
          {presets.map((preset) => (
            <button
              key={preset.days}
              type="button"
              class="secondary"
              onClick={() => setPeriod(lastDays(preset.days))}
            >
              {preset.label}
            </button>
          ))}
        </fieldset>
        <label>
          From (UTC)
          <input
            type="date"
            value={period.fromDay}
            max={period.toDay}
            onChange={(event) =>
              setPeriod({ ...period, fromDay: (event.target as HTMLInputElement).value })
            }
          />
        </label>
        <label>
          To (UTC, included)
          <input
            type="date"
            value={period.toDay}
            min={period.fromDay}
            onChange={(event) =>
              setPeriod({ ...period, toDay: (event.target as HTMLInputElement).value })
            }
          />
        </label>
        <label>
          Step
          <select
            value={period.step}
            onChange={(event) =>
              setPeriod({
                ...period,
                step: (event.target as HTMLSelectElement).value as UsagePeriod['step'],
              })
            }
          >
            <option value="day">Day</option>
            <option value="hour">Hour</option>
          </select>
        </label>
        <label>
          Model in the token chart
          <select
            value={model}
            onChange={(event) => setModel((event.target as HTMLSelectElement).value)}
          >
            <option value="">All models</option>
            {models.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p>
        <a href={csvHref} download="usage.csv">
          Download CSV
        </a>
      </p>
      <LoadState loading={overTime.loading} error={overTime.error} />
      {overTime.data !== undefined && (
        <UsageCharts report={overTime.data} period={period} model={model} />
      )}
      <h2>Per model</h2>
      <LoadState loading={perModel.loading} error={perModel.error} />
      {perModel.data !== undefined && <UsageTable report={perModel.data} />}
    </Page>
  );
}

function UsageCharts(props: { report: UsageReport; period: UsagePeriod; model: string }) {
  const times = periodSteps(props.period);
  const index = new Map(times.map((time, position) => [time, position]));
  const zeros = () => times.map(() => 0);
  const credits = new Map<string, number[]>();
  const tokens = { input: zeros(), cached: zeros(), output: zeros() };
  for (const group of props.report.data) {
    const position = index.get(Date.parse(group.period ?? '') / 1000);
    if (position === undefined) continue;
    const name = group.model ?? '';
    const values = credits.get(name) ?? zeros();
    // Drawn only: the exact amounts are the table's, as decimal strings.
    values[position] = (values[position] ?? 0) + group.cost_micro / 1_000_000;
    credits.set(name, values);
    if (props.model === '' || props.model === name) {
      tokens.input[position] = (tokens.input[position] ?? 0) + group.inputTokens;
      tokens.cached[position] = (tokens.cached[position] ?? 0) + group.cachedInputTokens;
      tokens.output[position] = (tokens.output[position] ?? 0) + group.outputTokens;
    }
  }
  if (props.report.data.length === 0) {
    return <p class="muted">No calls in this period.</p>;
  }
  return (
    <div class="charts">
      <figure>
        <figcaption>Credits per model, by {props.period.step} (UTC)</figcaption>
        <TimeChart
          label="Credits spent per model over time"
          times={times}
          series={[...credits].map(([label, values]) => ({ label, values }))}
          format={(value) => chartCredits.format(value)}
        />
      </figure>
      <figure>
        <figcaption>
          Tokens of {props.model === '' ? 'all models' : props.model}, by {props.period.step} (UTC)
        </figcaption>
        <TimeChart
          label="Input, cached input and output tokens over time"
          times={times}
          series={[
            { label: 'Input', values: tokens.input },
            { label: 'Cached input', values: tokens.cached },
            { label: 'Output', values: tokens.output },
          ]}
          format={(value) => showNumber(Math.round(value))}
        />
      </figure>
    </div>
  );
}

function UsageTable(props: { report: UsageReport }) {
  const row = (group: UsageGroup, name: string, total = false) => (
    <tr key={name} class={total ? 'total' : undefined}>
      <th scope="row">{name}</th>
      <td class="number">{showNumber(group.requests)}</td>
      <td class="number">{showNumber(group.inputTokens)}</td>
      <td class="number">{showNumber(group.cachedInputTokens)}</td>
      <td class="number">{showNumber(group.outputTokens)}</td>
      <td class="number">{showCredits(group.cost)}</td>
    </tr>
  );
  return (
    <TableScroll label="Usage per model">
      <table data-testid="usage-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Requests</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Cached input</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          {props.report.data.map((group) => row(group, group.model ?? '—'))}
          {row(props.report.totals, 'Total', true)}
        </tbody>
      </table>
    </TableScroll>
  );
}
