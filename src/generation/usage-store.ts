/** One record per generation request, successful or not. */
export interface UsageRecord {
  requestId: string;
  accountId: string;
  apiKeyId: string;
  /** `messages`, `responses`, `chat`, `count_tokens`, ... */
  surface: string;
  model: string;
  /** `provider-id/upstream-model`, or null when no deployment was reached. */
  deployment: string | null;
  inputTokens: number;
  inputCacheReadTokens: number;
  inputCacheWrite5mTokens: number;
  inputCacheWrite1hTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Micro-credits charged. */
  cost: number;
  /**
   * Micro-credits of the price that the hold and the balance could not cover and that were
   * therefore not charged (docs/decisions/0017); 0 almost always.
   */
  shortfall: number;
  latencyMs: number;
  /** Milliseconds until the first byte of the answer left for the client; null when none did. */
  firstTokenMs: number | null;
  /** `ok`, `client_error`, `upstream_error`, `cancelled`, ... */
  outcome: string;
  /** HTTP status the client got. */
  status: number;
  createdAt: number;
}

/** What a usage report may be grouped by; `day` and `hour` are UTC. */
export const usageGroupKeys = ['token', 'model', 'deployment', 'day', 'hour'] as const;
export type UsageGroupKey = (typeof usageGroupKeys)[number];

/** Which records a report or the request log covers: `[from, to)` in epoch milliseconds. */
export interface UsageFilter {
  /** Absent: every account (the operator's view). */
  accountId?: string;
  apiKeyId?: string;
  model?: string;
  from: number;
  to: number;
}

/** Sums over a set of usage records. */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  /** Prompt tokens read from the upstream's cache (part of `inputTokens`). */
  cachedInputTokens: number;
  /** Prompt tokens written to the cache, either lifetime (part of `inputTokens`). */
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Micro-credits charged: the usage entries of the ledger for the same records. */
  cost: number;
}

/** One group of a report: the totals and the value of each key it was grouped by. */
export interface UsageGroup extends UsageTotals {
  apiKeyId?: string;
  model?: string;
  deployment?: string | null;
  /** Start of the UTC day or hour, in epoch milliseconds. */
  period?: number;
}

/** Where a page of the request log ends: the next page starts after this record. */
export interface UsageCursor {
  createdAt: number;
  sequence: number;
}

export interface UsageRequestQuery extends UsageFilter {
  status?: number;
  /** Newest first: records older than the cursor. */
  after?: UsageCursor;
  limit: number;
}

export interface UsageRequestPage {
  records: UsageRecord[];
  /** Absent when this page is the last. */
  next?: UsageCursor;
}

export interface UsageStore {
  recordUsage(record: UsageRecord): Promise<void>;
  /** Newest first. */
  listUsage(accountId: string, limit: number): Promise<UsageRecord[]>;
  /** Totals per group, ordered by the group keys in the order given; one row when none is. */
  summarizeUsage(filter: UsageFilter, groupBy: readonly UsageGroupKey[]): Promise<UsageGroup[]>;
  /** The request log, newest first, one page at a time. */
  listRequests(query: UsageRequestQuery): Promise<UsageRequestPage>;
  /** Micro-credits charged to the token's calls recorded in `[since, until)` (no end: now). */
  spentByToken(apiKeyId: string, since: number, until?: number): Promise<number>;
}
