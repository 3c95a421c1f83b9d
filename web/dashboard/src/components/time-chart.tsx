import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: number[];
}

const palette = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d'];

/**
 * A line chart over time (uPlot draws on a canvas, about 50 KB). `times` are epoch seconds. The
 * figures are for the eye only: the table beside each chart carries the exact numbers, and is
 * what a screen reader reads.
 */
export function TimeChart(props: {
  label: string;
  times: number[];
  series: ChartSeries[];
  format: (value: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const dataKey = JSON.stringify([props.times, props.series]);
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const width = () => Math.max(260, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 240,
        series: [
          {},
          ...props.series.map((series, index) => ({
            label: series.label,
            stroke: palette[index % palette.length],
            width: 2,
            value: (_chart: uPlot, value: number | null) =>
              value === null ? '—' : props.format(value),
          })),
        ],
        axes: [
          {},
          { values: (_chart, ticks) => ticks.map((tick) => props.format(tick)), size: 70 },
        ],
        scales: { y: { range: (_chart, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      },
      [props.times, ...props.series.map((series) => series.values)],
      element,
    );
    const observer = new ResizeObserver(() => chart.setSize({ width: width(), height: 240 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
    // dataKey stands for the props the chart is drawn from.
  }, [dataKey]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
