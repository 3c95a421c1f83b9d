import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * A Gemini `usageMetadata` as canonical usage (src/canonical/usage.ts). `promptTokenCount` is the
 * whole prompt and includes `cachedContentTokenCount`, the cache reads. `candidatesTokenCount`
 * leaves out the thinking, which `thoughtsTokenCount` counts and Gemini bills as output, so the
 * output is their sum with the thoughts as its reasoning. Gemini reports no cache writes: its
 * implicit cache costs nothing to fill.
 */
export function mapGeminiUsage(raw: unknown): Usage {
  const usage = isJsonObject(raw) ? raw : {};
  const prompt = count(usage.promptTokenCount);
  const cacheRead = Math.min(count(usage.cachedContentTokenCount), prompt);
  const thoughts = count(usage.thoughtsTokenCount);
  return usageFromParts({
    noCache: prompt - cacheRead,
    cacheRead,
    output: count(usage.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
  });
}
