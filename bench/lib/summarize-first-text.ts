/**
 * The time-to-first-text figures of the slow-stream scenario: p50 per upstream dialect,
 * the gateway's and the slow mock's own, the difference, and its budget.
 */
import type { FirstTextSamples } from './measure-first-text.ts';
import type { UpstreamDialect } from './bench-targets.ts';

export interface FirstText {
  dialect: UpstreamDialect;
  /** Recorded requests per target (the samples below), failures not counted. */
  requests: number;
  failures: number;
  upstreamP50Ms: number;
  gatewayP50Ms: number;
  /** gateway p50 − upstream p50: the latency the gateway adds before the first text. */
  addedP50Ms: number;
  upstreamMs: number[];
  gatewayMs: number[];
}

/** What the gateway may add to the upstream's time to first text (docs/performance.md). */
export const FIRST_TEXT_BUDGET_MS = 50;

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round = (value: number) => Math.round(value * 10) / 10;

export function summarizeFirstText(samples: FirstTextSamples[]): FirstText[] {
  return samples.map(({ dialect, upstreamMs, gatewayMs, failures }) => {
    const upstreamP50Ms = p50(upstreamMs);
    const gatewayP50Ms = p50(gatewayMs);
    return {
      dialect,
      requests: Math.min(upstreamMs.length, gatewayMs.length),
      failures,
      upstreamP50Ms: round(upstreamP50Ms),
      gatewayP50Ms: round(gatewayP50Ms),
      addedP50Ms: round(gatewayP50Ms - upstreamP50Ms),
      upstreamMs: upstreamMs.map(round),
      gatewayMs: gatewayMs.map(round),
    };
  });
}

/** Met when every dialect was measured without failures and stays within the budget. */
export function firstTextBudget(firstText: FirstText[] | undefined): {
  name: string;
  limit: string;
  measured: string;
  met: boolean | 'not measured';
} {
  const name = "time to first text over the upstream's";
  const limit = `≤ ${FIRST_TEXT_BUDGET_MS} ms`;
  if (firstText === undefined || firstText.length === 0) {
    return { name, limit, measured: '—', met: 'not measured' };
  }
  // A dialect with no recorded request counts as the worst.
  const added = (row: FirstText) => (Number.isFinite(row.addedP50Ms) ? row.addedP50Ms : Infinity);
  const worst = firstText.reduce((top, row) => (added(row) > added(top) ? row : top));
  const failures = firstText.reduce((sum, row) => sum + row.failures, 0);
  return {
    name,
    limit,
    measured:
      `${Number.isFinite(worst.addedP50Ms) ? worst.addedP50Ms.toFixed(1) : '—'} ms (${worst.dialect}, p50)` +
      (failures > 0 ? `, ${failures} failed requests` : ''),
    met: failures === 0 && firstText.every((row) => added(row) <= FIRST_TEXT_BUDGET_MS),
  };
}

/** The rows of the report's time-to-first-text table. */
export function firstTextLines(firstText: FirstText[]): { header: string[]; lines: string[][] } {
  const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '—');
  return {
    header: [
      'slow-stream first text',
      'client → upstream',
      'upstream p50 ms',
      'gateway p50 ms',
      'added ms',
      'requests',
      'fail',
    ],
    lines: firstText.map((row) => [
      'slow-stream',
      `messages → ${row.dialect}`,
      fixed(row.upstreamP50Ms),
      fixed(row.gatewayP50Ms),
      fixed(row.addedP50Ms),
      String(row.requests),
      String(row.failures),
    ]),
  };
}
