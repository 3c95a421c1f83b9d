import type { Registry } from 'prom-client';

type LabelValues = readonly (string | undefined)[];

interface Series {
  readonly labels: Record<string, string>;
}

/** One label set of a counter, to count into directly (`series.value += amount`). */
export interface CounterSeries extends Series {
  value: number;
}

/** One label set of a histogram, to observe into with `TalliedHistogram.observeInto`. */
export interface HistogramSeries extends Series {
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A label set's key: its values joined by a byte no label value holds. */
function keyOf(values: LabelValues): string {
  return values.join('\u0000');
}

function labelsOf(names: readonly string[], values: LabelValues): Record<string, string> {
  const labels: Record<string, string> = {};
  names.forEach((name, index) => {
    const value = values[index];
    if (value !== undefined) labels[name] = value;
  });
  return labels;
}

/**
 * The request path's side of a metric: a counter or histogram per label set, counted in plain
 * numbers, and handed to prom-client's registry as its metric interface when scraped. prom-client's
 * own metrics validate and hash the label object of every operation (about a microsecond each, a
 * dozen per call); here an operation is one map lookup by the joined label values, or none
 * where the caller keeps the label set's series (`seriesOf`).
 */
abstract class TalliedMetric<S extends Series> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly labelNames: readonly string[];
  protected readonly series = new Map<string, S>();
  readonly #resetListeners: Array<() => void> = [];

  constructor(registry: Registry, options: { name: string; help: string; labelNames: string[] }) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    registry.registerMetric(this as never);
  }

  /**
   * Calls `listener` when the series are cleared (prom-client's `resetMetrics`), so a caller
   * keeping series from `seriesOf` drops them: they no longer show when scraped.
   */
  onReset(listener: () => void): void {
    this.#resetListeners.push(listener);
  }

  protected seriesFor(values: LabelValues, create: (labels: Record<string, string>) => S): S {
    const key = keyOf(values);
    let series = this.series.get(key);
    if (series === undefined) {
      series = create(labelsOf(this.labelNames, values));
      this.series.set(key, series);
    }
    return series;
  }

  /** prom-client asks this when the registry is rendered. */
  abstract get(): {
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: unknown[];
  };

  reset(): void {
    this.series.clear();
    for (const listener of this.#resetListeners) listener();
  }
}

export class TalliedCounter extends TalliedMetric<CounterSeries> {
  readonly type = 'counter';

  inc(values: LabelValues, amount = 1): void {
    this.seriesOf(values).value += amount;
  }

  /** The label set's series, created at 0 (it shows when scraped from then on). */
  seriesOf(values: LabelValues): CounterSeries {
    return this.seriesFor(values, (labels) => ({ labels, value: 0 }));
  }

  get() {
    const values = [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}

export class TalliedHistogram extends TalliedMetric<HistogramSeries> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(
    registry: Registry,
    options: { name: string; help: string; labelNames: string[]; buckets: number[] },
  ) {
    super(registry, options);
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
  }

  observe(values: LabelValues, value: number): void {
    this.observeInto(this.seriesOf(values), value);
  }

  /** The label set's series, created empty (it shows when scraped from then on). */
  seriesOf(values: LabelValues): HistogramSeries {
    return this.seriesFor(values, (labels) => ({
      labels,
      counts: new Float64Array(this.#bounds.length),
      sum: 0,
      count: 0,
    }));
  }

  /** Observes `value` into a series this histogram's `seriesOf` gave. */
  observeInto(series: HistogramSeries, value: number): void {
    series.sum += value;
    series.count += 1;
    const bounds = this.#bounds;
    for (let index = 0; index < bounds.length; index += 1) {
      if (value <= (bounds[index] as number)) {
        series.counts[index] = (series.counts[index] as number) + 1;
        break;
      }
    }
  }

  /** Buckets as Prometheus wants them: cumulative, then `+Inf`, `_sum` and `_count`. */
  get() {
    const values: unknown[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += counts[index] as number;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...labels, le: bound },
          value: cumulative,
        });
      });
      values.push({
        metricName: `${this.name}_bucket`,
        labels: { ...labels, le: '+Inf' },
        value: count,
      });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}
