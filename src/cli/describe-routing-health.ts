/** GET /api/admin/routing as the CLI reads it (the fields it prints). */
export interface RoutingHealthAnswer {
  models: Array<{
    id: string;
    strategy: string;
    affinity: boolean;
    fallbacks: string[];
    targets: RoutingTargetAnswer[];
  }>;
  pinned_sessions: number;
}

export interface RoutingTargetAnswer {
  id: string;
  priority: number;
  weight: number;
  key_env: string | null;
  state: string;
  until: string | null;
  in_flight: number;
  ttfb_ms: number | null;
  counters: { calls: number; failures: Record<string, number> };
}

const columns = [
  'TARGET',
  'KEY',
  'PRIO',
  'WEIGHT',
  'STATE',
  'UNTIL',
  'BUSY',
  'TTFB',
  'CALLS',
  'FAILURES',
];

/** Failure counts that are not 0, e.g. `refused 1, server 3`; `-` when none. */
function failures(counts: Record<string, number>): string {
  const named = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([failure, count]) => `${failure} ${count}`);
  return named.length === 0 ? '-' : named.join(', ');
}

function row(target: RoutingTargetAnswer): string[] {
  return [
    target.id,
    target.key_env ?? '-',
    String(target.priority),
    String(target.weight),
    target.state,
    target.until ?? '-',
    String(target.in_flight),
    target.ttfb_ms === null ? '-' : `${target.ttfb_ms}ms`,
    String(target.counters.calls),
    failures(target.counters.failures),
  ];
}

/** `routing health`: one table per model, its targets in routing order, columns aligned. */
export function describeRoutingHealth(answer: RoutingHealthAnswer): string {
  const lines: string[] = [];
  for (const model of answer.models) {
    const rows = [columns, ...model.targets.map(row)];
    const widths = columns.map((_, index) =>
      Math.max(...rows.map((cells) => (cells[index] as string).length)),
    );
    const fallbacks = model.fallbacks.length > 0 ? `, then ${model.fallbacks.join(', ')}` : '';
    lines.push(
      `${model.id} (${model.strategy}, affinity ${model.affinity ? 'on' : 'off'}${fallbacks})`,
      ...rows.map((cells) =>
        `  ${cells.map((cell, index) => cell.padEnd(widths[index] as number)).join('  ')}`.trimEnd(),
      ),
      '',
    );
  }
  lines.push(`pinned sessions: ${answer.pinned_sessions}`);
  return lines.join('\n');
}
