/** Medians over rounds, gateway/floor and gateway/peer ratios, budgets, the table and the JSON. */
import type { LoadMeasure } from './bench-load.ts';
import { floorTargets, type Scenario, type TargetName } from './bench-scenarios.ts';
import { firstTextBudget, firstTextLines } from './summarize-first-text.ts';
import type { FirstText } from './summarize-first-text.ts';

export interface Row {
  scenario: string;
  target: TargetName;
  rounds: number;
  median: LoadMeasure;
  /** Lowest and highest CPU µs per request of its rounds. */
  cpuRange?: { low: number; high: number };
}

export interface Ratios {
  scenario: string;
  dialect: 'same' | 'cross';
  streaming: boolean;
  /** The peer gateway this scenario was compared with, when one served it. */
  peer?: TargetName;
  floorReference: string;
  /** The floor the ratios are against: the one that cost less CPU per request in this run. */
  floor?: TargetName;
  cpuVsFloor?: number;
  /**
   * Streams only: the gateway's CPU per upstream event (the mock streams 20 per answer), and
   * the floor's, so a cost per event is not hidden in a cost per request.
   */
  cpuPerEvent?: number;
  floorCpuPerEvent?: number;
  rpsVsFloor?: number;
  cpuVsPeer?: number;
  rpsVsPeer?: number;
}

export interface Budget {
  name: string;
  limit: string;
  measured: string;
  met: boolean | 'not measured';
}

export interface SoakResult {
  seconds: number;
  connections: number;
  requests: number;
  failures: number;
  rssMbEarly: number;
  rssMbLate: number;
  rssMbPeak: number;
  samplesMb: number[];
}

function median(values: number[]): number {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[middle]! : (finite[middle - 1]! + finite[middle]!) / 2;
}

export function medianMeasure(rounds: LoadMeasure[]): LoadMeasure {
  const of = (pick: (measure: LoadMeasure) => number | undefined) =>
    median(rounds.map(pick).filter((value): value is number => value !== undefined));
  const single = rounds.some((measure) => measure.p50SingleMs !== undefined);
  return {
    requestsPerSecond: of((m) => m.requestsPerSecond),
    requests: of((m) => m.requests),
    p50Ms: of((m) => m.p50Ms),
    p99Ms: of((m) => m.p99Ms),
    ...(single
      ? { p50SingleMs: of((m) => m.p50SingleMs), p99SingleMs: of((m) => m.p99SingleMs) }
      : {}),
    cpuMicrosPerRequest: of((m) => m.cpuMicrosPerRequest),
    ...(rounds.some((m) => m.userMicrosPerRequest !== undefined)
      ? { userMicrosPerRequest: of((m) => m.userMicrosPerRequest) }
      : {}),
    peakRssMb: Math.max(...rounds.map((m) => m.peakRssMb)),
    rssGrowthMb: of((m) => m.rssGrowthMb),
    failures: rounds.reduce((sum, m) => sum + m.failures, 0),
  };
}

/** The lowest and highest CPU per request over a target's rounds. */
export function cpuRange(rounds: LoadMeasure[]): { low: number; high: number } | undefined {
  const values = rounds.map((m) => m.cpuMicrosPerRequest).filter((v) => Number.isFinite(v));
  return values.length === 0 ? undefined : { low: Math.min(...values), high: Math.max(...values) };
}

/** Rounds of the floor further apart than this mean the host, not the targets, set the figures. */
export const noisyFloorSpread = 1.25;

/**
 * The floor does the same work in every round, so rounds that differ by more than
 * `noisyFloorSpread` measured the host's other load: every ratio against that floor moves with
 * it, in either direction. Said in the report rather than left to be read as a result.
 */
export function noisyFloorNotes(rows: Row[]): string[] {
  return rows.flatMap((row) => {
    const range = row.cpuRange;
    if (!floorTargets.includes(row.target) || row.rounds < 2 || range === undefined) return [];
    const spread = range.high / range.low;
    if (!(spread > noisyFloorSpread)) return [];
    return [
      `the ${row.target} rounds of ${row.scenario} ran ${range.low.toFixed(0)}–${range.high.toFixed(0)} µs per request (${spread.toFixed(2)}×): ` +
        'the host was busy, so the ratios against it say more about the host than the gateway; run again or decide with bench:compare',
    ];
  });
}

export function computeRatios(scenarios: Scenario[], rows: Row[]): Ratios[] {
  const find = (scenario: string, target: TargetName) =>
    rows.find((row) => row.scenario === scenario && row.target === target)?.median;
  return scenarios.flatMap((scenario) => {
    const gateway = find(scenario.id, 'gateway');
    if (!gateway) return [];
    // Held to the cheaper floor: a heavier one would make every ratio look better than it is.
    const floors = floorTargets
      .map((target) => ({ target, measure: find(scenario.floorReference, target) }))
      .filter((entry) => entry.measure !== undefined)
      .sort((a, b) => a.measure!.cpuMicrosPerRequest - b.measure!.cpuMicrosPerRequest);
    const cheapest = floors[0];
    const floor = cheapest?.measure;
    const streaming = isStreaming(scenario);
    const peerName = scenario.targets.find((target) => target === 'peer' || target === 'ccr');
    const peer = peerName === undefined ? undefined : find(scenario.id, peerName);
    return [
      {
        scenario: scenario.id,
        dialect: scenario.dialect,
        streaming,
        ...(peer ? { peer: peerName } : {}),
        floorReference: scenario.floorReference,
        ...(floor
          ? {
              floor: cheapest.target,
              cpuVsFloor: gateway.cpuMicrosPerRequest / floor.cpuMicrosPerRequest,
              rpsVsFloor: gateway.requestsPerSecond / floor.requestsPerSecond,
            }
          : {}),
        ...(streaming
          ? {
              cpuPerEvent: gateway.cpuMicrosPerRequest / UPSTREAM_EVENTS_PER_STREAM,
              ...(floor
                ? { floorCpuPerEvent: floor.cpuMicrosPerRequest / UPSTREAM_EVENTS_PER_STREAM }
                : {}),
            }
          : {}),
        ...(peer
          ? {
              cpuVsPeer: gateway.cpuMicrosPerRequest / peer.cpuMicrosPerRequest,
              rpsVsPeer: gateway.requestsPerSecond / peer.requestsPerSecond,
            }
          : {}),
      },
    ];
  });
}

/** Events the mock upstream streams per answer (mock-upstream-bodies.ts). */
const UPSTREAM_EVENTS_PER_STREAM = 20;

/** An SSE scenario: the client asked for `stream: true`. */
export const isStreaming = (scenario: Scenario) => /"stream":true/.test(scenario.body);

const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);

export function evaluateBudgets(
  scenarios: Scenario[],
  rows: Row[],
  ratios: Ratios[],
  soak: SoakResult | undefined,
  firstText?: FirstText[],
): Budget[] {
  const worst = (dialect: 'same' | 'cross', streaming?: boolean) => {
    const values = ratios.filter(
      (r) =>
        r.dialect === dialect &&
        r.cpuVsFloor !== undefined &&
        (streaming === undefined || r.streaming === streaming),
    );
    const top = values.sort((a, b) => b.cpuVsFloor! - a.cpuVsFloor!)[0];
    return top ? { value: top.cpuVsFloor!, where: top.scenario } : undefined;
  };
  const slowIds = new Set(scenarios.filter((s) => s.slow).map((s) => s.id));
  const peerRatios = ratios.filter((r) => r.rpsVsPeer !== undefined && !slowIds.has(r.scenario));
  const peerWorst = peerRatios.sort((a, b) => a.rpsVsPeer! - b.rpsVsPeer!)[0];
  const gatewayRows = rows.filter((row) => row.target === 'gateway');
  const rss = Math.max(...gatewayRows.map((row) => row.median.peakRssMb));
  // The floor is plain Node under the same load: its own peak says what of the gateway's is Node's.
  const floorRss = rows
    .filter((row) => floorTargets.includes(row.target))
    .map((row) => row.median.peakRssMb);
  const rssWhere =
    floorRss.length === 0
      ? 'max over scenarios'
      : `max over scenarios; the floor's ${fixed(Math.min(...floorRss), 0)}–${fixed(Math.max(...floorRss), 0)} MB`;
  const budget = (
    name: string,
    limit: string,
    value: { value: number; where: string } | undefined,
    ok: (v: number) => boolean,
    unit: string,
  ): Budget =>
    value
      ? {
          name,
          limit,
          measured: `${fixed(value.value, 2)}${unit} (${value.where})`,
          met: ok(value.value),
        }
      : { name, limit, measured: '—', met: 'not measured' };
  return [
    budget(
      'same-dialect JSON CPU/request vs floor',
      '≤ 1.5×',
      worst('same', false),
      (v) => v <= 1.5,
      '×',
    ),
    budget(
      'same-dialect SSE CPU/request vs floor',
      '≤ 2×',
      worst('same', true),
      (v) => v <= 2,
      '×',
    ),
    budget('cross-dialect CPU/request vs floor', '≤ 2.5×', worst('cross'), (v) => v <= 2.5, '×'),
    budget(
      'throughput vs peer',
      '≥ 10×',
      peerWorst ? { value: peerWorst.rpsVsPeer!, where: peerWorst.scenario } : undefined,
      (v) => v >= 10,
      '×',
    ),
    budget(
      'gateway peak RSS under load',
      '≤ 150 MB',
      gatewayRows.length ? { value: rss, where: rssWhere } : undefined,
      (v) => v <= 150,
      ' MB',
    ),
    soak
      ? {
          name: 'memory growth over a streaming soak',
          limit: 'none over 10 min',
          measured: `${fixed(soak.rssMbEarly)} → ${fixed(soak.rssMbLate)} MB over ${soak.seconds} s`,
          met: soak.seconds >= 600 ? soak.rssMbLate - soak.rssMbEarly <= 10 : 'not measured',
        }
      : {
          name: 'memory growth over a streaming soak',
          limit: 'none over 10 min',
          measured: '—',
          met: 'not measured',
        },
    firstTextBudget(firstText),
  ];
}

function table(header: string[], lines: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const render = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
  ].join('\n');
}

export function renderReport(
  rows: Row[],
  ratios: Ratios[],
  budgets: Budget[],
  notes: string[],
  firstText?: FirstText[],
): string {
  const measures = table(
    [
      'scenario',
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'p50 ms 1c',
      'p99 ms 1c',
      'CPU µs/req',
      'user µs/req',
      'peak RSS MB',
      'fail',
    ],
    rows.map(({ scenario, target, median: m }) => [
      scenario,
      target,
      fixed(m.requestsPerSecond, 0),
      fixed(m.p50Ms),
      fixed(m.p99Ms),
      fixed(m.p50SingleMs),
      fixed(m.p99SingleMs),
      fixed(m.cpuMicrosPerRequest, 0),
      fixed(m.userMicrosPerRequest, 0),
      fixed(m.peakRssMb, 0),
      String(m.failures),
    ]),
  );
  const ratioTable = table(
    [
      'scenario',
      'dialect',
      'floor ref',
      'floor',
      'CPU gw/floor',
      'µs/event gw',
      'µs/event floor',
      'req/s gw/floor',
      'peer',
      'CPU gw/peer',
      'req/s gw/peer',
    ],
    ratios.map((r) => [
      r.scenario,
      r.dialect,
      r.floorReference,
      r.floor ?? '—',
      fixed(r.cpuVsFloor, 2),
      fixed(r.cpuPerEvent, 1),
      fixed(r.floorCpuPerEvent, 1),
      fixed(r.rpsVsFloor, 2),
      r.peer ?? '—',
      fixed(r.cpuVsPeer, 2),
      fixed(r.rpsVsPeer, 2),
    ]),
  );
  const budgetTable = table(
    ['budget', 'limit', 'measured', 'met'],
    budgets.map((b) => [
      b.name,
      b.limit,
      b.measured,
      b.met === 'not measured' ? 'not measured' : b.met ? 'yes' : 'NO',
    ]),
  );
  const firstTextTable: string[] = [];
  if (firstText !== undefined && firstText.length > 0) {
    const { header, lines } = firstTextLines(firstText);
    firstTextTable.push(table(header, lines), '');
  }
  return [
    measures,
    '',
    ratioTable,
    '',
    ...firstTextTable,
    budgetTable,
    ...(notes.length ? ['', ...notes.map((n) => `note: ${n}`)] : []),
  ].join('\n');
}
