import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** The counters an Anthropic `usage` object reports; absent ones stay undefined. */
export interface AnthropicUsageCounts {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheCreation?: number;
  cacheCreation5m?: number;
  cacheCreation1h?: number;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Merges an Anthropic `usage` object into earlier counts. `message_delta` usage is cumulative,
 * so every number it carries replaces the one from `message_start`; numbers it omits are kept.
 */
export function mergeAnthropicUsage(
  previous: AnthropicUsageCounts,
  raw: unknown,
): AnthropicUsageCounts {
  if (!isJsonObject(raw)) return previous;
  const split = isJsonObject(raw.cache_creation) ? raw.cache_creation : undefined;
  // Member by member: every message-style answer and stream passes through here, and a list of
  // pairs to loop over cost it seven arrays.
  return {
    input: count(raw.input_tokens) ?? previous.input,
    output: count(raw.output_tokens) ?? previous.output,
    cacheRead: count(raw.cache_read_input_tokens) ?? previous.cacheRead,
    cacheCreation: count(raw.cache_creation_input_tokens) ?? previous.cacheCreation,
    cacheCreation5m: count(split?.ephemeral_5m_input_tokens) ?? previous.cacheCreation5m,
    cacheCreation1h: count(split?.ephemeral_1h_input_tokens) ?? previous.cacheCreation1h,
  };
}

/**
 * Canonical usage (src/canonical/usage.ts). Anthropic's `input_tokens` excludes cache reads and
 * writes, so the prompt total is input + cache read + cache creation. The per-TTL split
 * decides how much of the creation was one-hour; the rest is five-minute.
 */
export function mapAnthropicUsage(counts: AnthropicUsageCounts): Usage {
  const oneHour = counts.cacheCreation1h ?? 0;
  const creation = counts.cacheCreation ?? (counts.cacheCreation5m ?? 0) + oneHour;
  const cacheWrite1h = Math.min(oneHour, creation);
  return usageFromParts({
    noCache: counts.input ?? 0,
    cacheRead: counts.cacheRead ?? 0,
    cacheWrite5m: creation - cacheWrite1h,
    cacheWrite1h,
    output: counts.output ?? 0,
  });
}
