import { describe, expect, it } from 'vitest';

import type { LoadMeasure } from '../../bench/lib/bench-load.ts';
import { computeRatios, type Row } from '../../bench/lib/bench-report.ts';
import { buildScenarios } from '../../bench/lib/bench-scenarios.ts';

const measure = (cpuMicrosPerRequest: number): LoadMeasure => ({
  requestsPerSecond: 1000,
  requests: 5000,
  p50Ms: 4,
  p99Ms: 10,
  cpuMicrosPerRequest,
  peakRssMb: 100,
  rssGrowthMb: 0,
  failures: 0,
});

const row = (scenario: string, target: Row['target'], cpu: number): Row => ({
  scenario,
  target,
  rounds: 1,
  median: measure(cpu),
});

describe('the floor a scenario is held to', () => {
  const scenarios = buildScenarios(false);

  it('runs both floors wherever a floor runs', () => {
    for (const scenario of scenarios) {
      expect(scenario.targets.includes('floor'), scenario.id).toBe(
        scenario.targets.includes('floor-plain'),
      );
    }
  });

  it('is the cheaper of the two, whichever it is', () => {
    const ratios = computeRatios(scenarios, [
      row('chat-json', 'floor', 300),
      row('chat-json', 'floor-plain', 200),
      row('chat-json', 'gateway', 400),
      row('chat-sse', 'floor', 250),
      row('chat-sse', 'floor-plain', 260),
      row('chat-sse', 'gateway', 500),
    ]);
    const json = ratios.find((ratio) => ratio.scenario === 'chat-json');
    expect(json?.floor).toBe('floor-plain');
    expect(json?.cpuVsFloor).toBe(2);
    const sse = ratios.find((ratio) => ratio.scenario === 'chat-sse');
    expect(sse?.floor).toBe('floor');
    expect(sse?.cpuVsFloor).toBe(2);
    // A stream's cost is also told per upstream event (the mock streams 20).
    expect(sse?.cpuPerEvent).toBe(25);
    expect(sse?.floorCpuPerEvent).toBe(12.5);
    expect(json?.cpuPerEvent).toBeUndefined();
  });
});
