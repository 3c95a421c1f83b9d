/**
 * A key's rate-limit state as the upstream reports it on each answer. Absent fields send no
 * header; the reset fields are durations from the moment of the answer.
 */
export interface FakeRateLimits {
  limitRequests?: number;
  remainingRequests?: number;
  /** Until the request limit is fully replenished. */
  resetRequestsMs?: number;
  limitTokens?: number;
  remainingTokens?: number;
  /** Until the token limit is fully replenished. */
  resetTokensMs?: number;
}

/**
 * OpenAI writes reset times as Go durations (`20ms`, `1s`, `1.5s`, `6m0s`, `1h2m3s`; its
 * "Rate limits" guide), whole units first and the seconds last, as Go's `Duration.String` does.
 */
export function formatResetDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Number(ms.toFixed(3))}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = `${Number(((ms % 60_000) / 1000).toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

type Resource = 'requests' | 'tokens';

/** Anthropic names `anthropic-ratelimit-<resource>-<field>` and gives resets as RFC 3339 times. */
function anthropicName(resource: Resource, field: 'limit' | 'remaining' | 'reset'): string {
  return `anthropic-ratelimit-${resource}-${field}`;
}

/** OpenAI names `x-ratelimit-<field>-<resource>` and gives resets as durations. */
function openAiName(resource: Resource, field: 'limit' | 'remaining' | 'reset'): string {
  return `x-ratelimit-${field}-${resource}`;
}

export function renderRateLimitHeaders(
  limits: FakeRateLimits,
  anthropicStyle: boolean,
  nowMs: number,
): Record<string, string> {
  const name = anthropicStyle ? anthropicName : openAiName;
  // Millisecond precision is still RFC 3339, and keeps short resets usable in tests.
  const reset = (ms: number) =>
    anthropicStyle ? new Date(nowMs + ms).toISOString() : formatResetDuration(ms);
  const headers: Record<string, string> = {};
  const fields: [Resource, number | undefined, number | undefined, number | undefined][] = [
    ['requests', limits.limitRequests, limits.remainingRequests, limits.resetRequestsMs],
    ['tokens', limits.limitTokens, limits.remainingTokens, limits.resetTokensMs],
  ];
  for (const [resource, limit, remaining, resetMs] of fields) {
    if (limit !== undefined) headers[name(resource, 'limit')] = String(limit);
    if (remaining !== undefined) headers[name(resource, 'remaining')] = String(remaining);
    if (resetMs !== undefined) headers[name(resource, 'reset')] = reset(resetMs);
  }
  return headers;
}
