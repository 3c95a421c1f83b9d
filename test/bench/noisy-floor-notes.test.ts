import { describe, expect, it } from 'vitest';

import type { LoadMeasure } from '../../bench/lib/bench-load.ts';
import { cpuRange, noisyFloorNotes, type Row } from '../../bench/lib/bench-report.ts';

const measure = (cpuMicrosPerRequest: number): LoadMeasure => ({
  requestsPerSecond: 1000,
  requests: 5000,
  p50Ms: 4,
  p99Ms: 10,
  cpuMicrosPerRequest,
  peakRssMb: 120,
  rssGrowthMb: 0,
  failures: 0,
});

function row(target: Row['target'], cpu: number[]): Row {
  const rounds = cpu.map(measure);
  const range = cpuRange(rounds);
  return {
    scenario: 'chat-json',
    target,
    rounds: rounds.length,
    median: measure(cpu[0] as number),
    ...(range === undefined ? {} : { cpuRange: range }),
  };
}

describe('noisyFloorNotes', () => {
  it('names a floor whose rounds differ by more than a quarter, with their range', () => {
    const notes = noisyFloorNotes([row('floor', [175, 304, 275])]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('chat-json');
    expect(notes[0]).toContain('175–304 µs');
    expect(notes[0]).toContain('1.74×');
  });

  it('says nothing of a steady floor, of the gateway, or of a single round', () => {
    expect(noisyFloorNotes([row('floor', [130, 138, 142])])).toEqual([]);
    expect(noisyFloorNotes([row('gateway', [200, 320, 250])])).toEqual([]);
    expect(noisyFloorNotes([row('floor', [130])])).toEqual([]);
  });
});
