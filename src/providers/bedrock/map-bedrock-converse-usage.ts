import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The one-hour part of the cache writes, from `cacheDetails` (one entry per TTL). */
function oneHourWrites(details: unknown): number {
  if (!Array.isArray(details)) return 0;
  let tokens = 0;
  for (const detail of details) {
    if (isJsonObject(detail) && detail.ttl === '1h') tokens += count(detail.inputTokens);
  }
  return tokens;
}

/**
 * A Converse `usage` (TokenUsage) as canonical usage (src/canonical/usage.ts). Like Anthropic's,
 * Bedrock's `inputTokens` leaves out cache reads and writes, so the prompt total is their sum;
 * `cacheDetails` says how much of the writes were for an hour, the rest being five minutes.
 */
export function mapBedrockConverseUsage(raw: unknown): Usage {
  const usage = isJsonObject(raw) ? raw : {};
  const writes = count(usage.cacheWriteInputTokens);
  const cacheWrite1h = Math.min(oneHourWrites(usage.cacheDetails), writes);
  return usageFromParts({
    noCache: count(usage.inputTokens),
    cacheRead: count(usage.cacheReadInputTokens),
    cacheWrite5m: writes - cacheWrite1h,
    cacheWrite1h,
    output: count(usage.outputTokens),
  });
}
