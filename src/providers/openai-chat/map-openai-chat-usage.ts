import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isRecord } from './parse-openai-chat-json.ts';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * An OpenAI chat `usage` object → canonical usage. OpenAI's `prompt_tokens` includes cached
 * reads (`prompt_tokens_details.cached_tokens`), so noCache = prompt − cached and the canonical
 * total equals `prompt_tokens` exactly. DeepSeek reports the cached part as
 * `prompt_cache_hit_tokens` instead. OpenAI reports no cache writes.
 */
export function mapOpenAIChatUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = count(raw['prompt_tokens']);
  const completion = count(raw['completion_tokens']);
  if (prompt === undefined && completion === undefined) return undefined;
  const promptDetails = isRecord(raw['prompt_tokens_details']) ? raw['prompt_tokens_details'] : {};
  const completionDetails = isRecord(raw['completion_tokens_details'])
    ? raw['completion_tokens_details']
    : {};
  const input = prompt ?? 0;
  const cached = Math.min(
    input,
    count(promptDetails['cached_tokens']) ?? count(raw['prompt_cache_hit_tokens']) ?? 0,
  );
  return usageFromParts({
    noCache: input - cached,
    cacheRead: cached,
    output: completion ?? 0,
    reasoning: count(completionDetails['reasoning_tokens']) ?? 0,
  });
}
