import { formatCredits } from '../billing/micro-credits.ts';
import { ApiError } from '../canonical/generation-error.ts';
import {
  usageGroupKeys,
  type UsageCursor,
  type UsageFilter,
  type UsageGroup,
  type UsageGroupKey,
  type UsageRecord,
  type UsageRequestQuery,
  type UsageStore,
} from '../generation/usage-store.ts';

/** A report's period when none is asked for: the last 30 days. */
const defaultPeriodMs = 30 * 86_400_000;
const defaultPageSize = 50;
const largestPageSize = 500;

/** What a client of the admin API, the CLI or the account holder's view asks for. */
export interface UsageQueryText {
  from?: string | undefined;
  to?: string | undefined;
  token?: string | undefined;
  model?: string | undefined;
  group_by?: string | undefined;
  status?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
}

/** An ISO date (`2026-03-01`, UTC midnight) or date-time; `what` names the field for the error. */
function parseTime(text: string, what: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? Date.parse(`${text}T00:00:00Z`)
    : Date.parse(text);
  if (Number.isNaN(time)) {
    throw new ApiError('invalid_request', `${what}: "${text}" is not an ISO date or date-time.`);
  }
  return time;
}

/** The records a report covers, `[from, to)`, scoped to `accountId` when given. */
export function readUsageFilter(
  query: UsageQueryText,
  scope: { accountId?: string },
  now: number,
): UsageFilter {
  const to = query.to === undefined ? now : parseTime(query.to, 'to');
  const from = query.from === undefined ? to - defaultPeriodMs : parseTime(query.from, 'from');
  if (from >= to) throw new ApiError('invalid_request', '"from" must be before "to".');
  return {
    from,
    to,
    ...(scope.accountId !== undefined ? { accountId: scope.accountId } : {}),
    ...(query.token !== undefined && query.token !== '' ? { apiKeyId: query.token } : {}),
    ...(query.model !== undefined && query.model !== '' ? { model: query.model } : {}),
  };
}

/** `model,day` → the group keys; refuses unknown keys and day with hour. */
export function readGroupBy(text: string | undefined): UsageGroupKey[] {
  if (text === undefined || text.trim() === '') return [];
  const keys = text.split(',').map((key) => key.trim());
  const unknown = keys.filter((key) => !(usageGroupKeys as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new ApiError(
      'invalid_request',
      `group_by: unknown ${unknown.join(', ')}; known: ${usageGroupKeys.join(', ')}.`,
    );
  }
  if (keys.includes('day') && keys.includes('hour')) {
    throw new ApiError('invalid_request', 'group_by: day or hour, not both.');
  }
  return [...new Set(keys)] as UsageGroupKey[];
}

/** The request log's page query: the filter, a status, a page size and where to continue. */
export function readRequestQuery(filter: UsageFilter, query: UsageQueryText): UsageRequestQuery {
  const limit = query.limit === undefined ? defaultPageSize : Number(query.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > largestPageSize) {
    throw new ApiError('invalid_request', `limit must be an integer from 1 to ${largestPageSize}.`);
  }
  const status = query.status === undefined ? undefined : Number(query.status);
  if (status !== undefined && !(Number.isSafeInteger(status) && status >= 100 && status <= 599)) {
    throw new ApiError('invalid_request', 'status must be an HTTP status code.');
  }
  return {
    ...filter,
    limit,
    ...(status !== undefined ? { status } : {}),
    ...(query.cursor !== undefined && query.cursor !== ''
      ? { after: decodeUsageCursor(query.cursor) }
      : {}),
  };
}

/** Opaque to clients: where the next page of the request log starts. */
export function encodeUsageCursor(cursor: UsageCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.sequence}`).toString('base64url');
}

function decodeUsageCursor(text: string): UsageCursor {
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(text, 'base64url').toString());
  const createdAt = Number(match?.[1]);
  const sequence = Number(match?.[2]);
  if (match === null || !Number.isSafeInteger(createdAt) || !Number.isSafeInteger(sequence)) {
    throw new ApiError('invalid_request', 'cursor is not one this gateway gave.');
  }
  return { createdAt, sequence };
}

export interface UsageReport {
  from: number;
  to: number;
  groupBy: UsageGroupKey[];
  totals: UsageGroup;
  groups: UsageGroup[];
}

/** Totals and groups of one filter; the totals equal the sum of the groups. */
export async function reportUsage(
  usage: UsageStore,
  filter: UsageFilter,
  groupBy: UsageGroupKey[],
): Promise<UsageReport> {
  const [[totals], groups] = await Promise.all([
    usage.summarizeUsage(filter, []),
    groupBy.length === 0 ? Promise.resolve([]) : usage.summarizeUsage(filter, groupBy),
  ]);
  return { from: filter.from, to: filter.to, groupBy, totals: totals as UsageGroup, groups };
}

export type UsageGroupJson = Omit<UsageGroup, 'cost' | 'period'> & {
  period?: string;
  cost: string;
  cost_micro: number;
};

/** Money as every operator answer writes it (present-operator-records.ts); periods as ISO. */
export function presentUsageGroup(group: UsageGroup): UsageGroupJson {
  const { cost, period, ...rest } = group;
  return {
    ...rest,
    ...(period !== undefined ? { period: new Date(period).toISOString() } : {}),
    cost: formatCredits(cost),
    cost_micro: cost,
  };
}

export function presentUsageReport(report: UsageReport): {
  from: string;
  to: string;
  group_by: UsageGroupKey[];
  totals: UsageGroupJson;
  data: UsageGroupJson[];
} {
  return {
    from: new Date(report.from).toISOString(),
    to: new Date(report.to).toISOString(),
    group_by: report.groupBy,
    totals: presentUsageGroup(report.totals),
    data: report.groups.map(presentUsageGroup),
  };
}

const groupColumns: Record<UsageGroupKey, string> = {
  token: 'token_id',
  model: 'model',
  deployment: 'deployment',
  day: 'period',
  hour: 'period',
};

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report's groups as CSV (RFC 4180, CRLF line ends), a header row first. */
export function renderUsageCsv(report: UsageReport): string {
  const header = [
    ...report.groupBy.map((key) => groupColumns[key]),
    'requests',
    'input_tokens',
    'cached_input_tokens',
    'cache_write_tokens',
    'output_tokens',
    'reasoning_tokens',
    'cost',
    'cost_micro',
  ];
  const rows = (report.groupBy.length === 0 ? [report.totals] : report.groups).map((group) => [
    ...report.groupBy.map((key) => {
      switch (key) {
        case 'token':
          return group.apiKeyId;
        case 'model':
          return group.model;
        case 'deployment':
          return group.deployment;
        case 'day':
        case 'hour':
          return group.period === undefined ? '' : new Date(group.period).toISOString();
        default: {
          const unhandled: never = key;
          return String(unhandled);
        }
      }
    }),
    group.requests,
    group.inputTokens,
    group.cachedInputTokens,
    group.cacheWriteTokens,
    group.outputTokens,
    group.reasoningTokens,
    formatCredits(group.cost),
    group.cost,
  ]);
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

export type UsageRequestJson = Omit<UsageRecord, 'cost' | 'shortfall'> & {
  time: string;
  cost: string;
  cost_micro: number;
  shortfall_micro: number;
};

export function presentUsageRequest(record: UsageRecord): UsageRequestJson {
  const { cost, shortfall, ...rest } = record;
  return {
    ...rest,
    time: new Date(record.createdAt).toISOString(),
    cost: formatCredits(cost),
    cost_micro: cost,
    shortfall_micro: shortfall,
  };
}
