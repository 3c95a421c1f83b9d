/** The JSON the dashboard's routes answer (the gateway's operator shapes). */

export interface SessionAccount {
  id: string;
  name: string;
  is_admin: boolean;
}

export interface Session {
  account: SessionAccount;
  csrf_token: string;
  expires_at: string;
}

/** Money: decimal credits under the name, integer micro-credits under `<name>_micro`. */
export interface Balance {
  balance: string;
  held: string;
  available: string;
  balance_micro: number;
  held_micro: number;
  available_micro: number;
}

export interface Overview {
  account: SessionAccount;
  balance: Balance;
  tokens: number;
  spend_today: string;
  spend_today_micro: number;
}

export interface LimitSet {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  concurrentRequests?: number;
}

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly';

export interface BudgetStanding {
  period: string;
  amount?: string;
  amount_micro?: number;
  spent: string;
  spent_micro?: number;
  remaining: string;
  remaining_micro?: number;
  resets_at: string | null;
}

export interface TokenView {
  id: string;
  accountId: string;
  name: string;
  displayPrefix: string;
  interface: string;
  allowedModels: string[] | null;
  expiresAt: number | null;
  disabledAt: number | null;
  createdAt: number;
  budget: { amount: number; period: string } | null;
  limits: LimitSet | null;
  budget_standing?: BudgetStanding | null;
}

export interface CreatedToken {
  token: string;
  api_key: TokenView;
}

export interface UsageGroup {
  apiKeyId?: string;
  model?: string;
  deployment?: string | null;
  period?: string;
  requests: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cost: string;
  cost_micro: number;
}

export interface UsageReport {
  from: string;
  to: string;
  group_by: string[];
  totals: UsageGroup;
  data: UsageGroup[];
}

export interface UsageRequest {
  requestId: string;
  apiKeyId: string;
  surface: string;
  model: string;
  deployment: string | null;
  inputTokens: number;
  inputCacheReadTokens: number;
  outputTokens: number;
  latencyMs: number;
  outcome: string;
  status: number;
  time: string;
  cost: string;
  cost_micro: number;
}

export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
  has_more?: boolean;
}

export interface StorageSummary {
  quota_bytes: number;
  used_bytes: number;
  available_bytes: number;
  file_count: number;
  retention_days: number;
  max_retention_days: number;
}

export interface StoredAsset {
  id: string;
  name: string;
  size: number;
  content_type: string;
  source: string;
  created_at: number;
  delete_at: number;
  protected: boolean;
}

export interface StoragePolicy {
  retention_days: number;
  max_retention_days: number;
}

export interface CleanupResult {
  dry_run: boolean;
  deleted: string[];
  pending: string[];
  skipped: Array<{ id: string; reason: string }>;
  freed_bytes: number;
}

export interface ImageJob {
  id: string;
  status: string;
  model: string;
  created_at: string | number;
  finished_at: string | number | null;
  result_asset_ids: string[];
  error: { message?: string; type?: string } | string | null;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  amount: string;
  amount_micro: number;
  kind: string;
  reason: string;
  requestId: string | null;
  createdAt: number;
}

export interface AccountRow {
  id: string;
  name: string;
  is_admin: boolean;
  balance: Balance;
}

export interface RoutingTarget {
  id: string;
  provider: string;
  deployment: string;
  priority: number;
  weight: number;
  key_id: string;
  key_env: string | null;
  state: string;
  until: string | null;
  in_flight: number;
  ttfb_ms: number | null;
  counters: {
    calls: number;
    /** Failures by class (rate limited, server error, timeout, …). */
    failures: Record<string, number>;
    cooldowns: number;
    circuit_opens: number;
  };
}

export interface RoutingOverview {
  models: Array<{ id: string; strategy: string; targets: RoutingTarget[] }>;
  pinned_sessions: number;
}

export interface GatewayMetrics {
  requests: Record<string, number>;
  tokens: { input: number; cached: number; output: number };
  cost_micro: number;
  in_flight: number;
  uptime_s: number;
  rss_bytes: number;
}
