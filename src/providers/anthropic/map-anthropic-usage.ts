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
  const split = isJsonObject(raw.cache_creation) ? raw.cache_creation : {};
  const next: AnthropicUsageCounts = { ...previous };
  const fields: Array<[keyof AnthropicUsageCounts, unknown]> = [
    ['input', raw.input_tokens],
    ['output', raw.output_tokens],
    ['cacheRead', raw.cache_read_input_tokens],
    ['cacheCreation', raw.cache_creation_input_tokens],
    ['cacheCreation5m', split.ephemeral_5m_input_tokens],
    ['cacheCreation1h', split.ephemeral_1h_input_tokens],
  ];
  for (const [key, value] of fields) {
    const parsed = count(value);
    if (parsed !== undefined) next[key] = parsed;
  }
  return next;
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
