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
  /** `ok`, `client_error`, `upstream_error`, `cancelled`, ... */
  outcome: string;
  /** HTTP status the client got. */
  status: number;
  createdAt: number;
}

export interface UsageStore {
  recordUsage(record: UsageRecord): Promise<void>;
  /** Newest first. */
  listUsage(accountId: string, limit: number): Promise<UsageRecord[]>;
}
