import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isJsonRecord, readNumber } from './read-openai-responses-json.ts';

/**
 * OpenAI usage in canonical form. OpenAI's `input_tokens` includes the cached reads reported in
 * `cached_tokens` (docs/clients.md), so the uncached part is the difference; the dialect reports no
 * cache writes. Undefined when the upstream sent no usage at all.
 */
export function decodeOpenAIResponsesUsage(usage: unknown): Usage | undefined {
  if (!isJsonRecord(usage)) return undefined;
  const input = readNumber(usage.input_tokens);
  const output = readNumber(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const inputDetails = isJsonRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isJsonRecord(usage.output_tokens_details)
    ? usage.output_tokens_details
    : {};
  const cached = readNumber(inputDetails.cached_tokens) ?? 0;
  return usageFromParts({
    noCache: Math.max(0, (input ?? 0) - cached),
    cacheRead: cached,
    output: output ?? 0,
    reasoning: readNumber(outputDetails.reasoning_tokens) ?? 0,
  });
}
