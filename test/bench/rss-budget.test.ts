import { describe, expect, it } from 'vitest';

import type { LoadMeasure } from '../../bench/lib/bench-load.ts';
import { evaluateBudgets, type Row } from '../../bench/lib/bench-report.ts';

function row(scenario: string, target: Row['target'], peakRssMb: number): Row {
  const median: LoadMeasure = {
    requestsPerSecond: 1000,
    requests: 5000,
    p50Ms: 4,
    p99Ms: 10,
    cpuMicrosPerRequest: 200,
    peakRssMb,
    rssGrowthMb: 0,
    failures: 0,
  };
  return { scenario, target, rounds: 3, median };
}

const rssBudget = (rows: Row[]) =>
  evaluateBudgets([], rows, [], undefined).find(
    (budget) => budget.name === 'gateway peak RSS under load',
  );

describe('the peak RSS budget', () => {
  it("is judged on the gateway's highest peak and shows the floor's range beside it", () => {
    const budget = rssBudget([
      row('chat-json', 'floor', 129.4),
      row('chat-json', 'gateway', 205.2),
      row('messages-sse', 'floor', 171.3),
      row('messages-sse', 'gateway', 148.9),
      row('chat-json', 'peer', 280),
    ]);
    expect(budget?.measured).toBe("205.20 MB (max over scenarios; the floor's 129–171 MB)");
    expect(budget?.met).toBe(false);
  });

  it('is met at 150 MB and names no floor when none ran', () => {
    const budget = rssBudget([row('evaluation-3', 'gateway', 150)]);
    expect(budget?.measured).toBe('150.00 MB (max over scenarios)');
    expect(budget?.met).toBe(true);
  });
});
