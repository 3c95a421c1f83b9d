import { describe, expect, it } from 'vitest';

import type { LoadMeasure } from '../../bench/lib/bench-load.ts';
import { medianMeasure, renderReport, type Row } from '../../bench/lib/bench-report.ts';

const round = (cpu: number, user: number | undefined): LoadMeasure => ({
  requestsPerSecond: 1000,
  requests: 5000,
  p50Ms: 4,
  p99Ms: 10,
  cpuMicrosPerRequest: cpu,
  ...(user === undefined ? {} : { userMicrosPerRequest: user }),
  peakRssMb: 100,
  rssGrowthMb: 0,
  failures: 0,
});

describe("the user-space part of a target's CPU", () => {
  it('is the median over rounds, beside the total', () => {
    const median = medianMeasure([round(600, 520), round(580, 500), round(640, 560)]);
    expect(median.cpuMicrosPerRequest).toBe(600);
    expect(median.userMicrosPerRequest).toBe(520);
  });

  it('is left out of a median whose rounds never measured it', () => {
    expect(medianMeasure([round(600, undefined)]).userMicrosPerRequest).toBeUndefined();
  });

  it("has its own column in the report's table, a dash where it is unknown", () => {
    const rows: Row[] = [
      { scenario: 'chat-json', target: 'gateway', rounds: 3, median: round(587, 512) },
      { scenario: 'chat-json', target: 'floor', rounds: 3, median: round(243, undefined) },
    ];
    const lines = renderReport(rows, [], [], []).split('\n');
    const header = lines.find((line) => line.includes('user µs/req')) as string;
    const cells = (line: string) => line.split('|').map((cell) => cell.trim());
    const column = cells(header).indexOf('user µs/req');
    const gateway = lines.find((line) => line.includes('| gateway')) as string;
    const floor = lines.find((line) => line.includes('| floor ')) as string;
    expect(cells(gateway)[column]).toBe('512');
    expect(cells(gateway)[column - 1]).toBe('587');
    expect(cells(floor)[column]).toBe('—');
  });
});
