import type { Usage } from '../../canonical/usage.ts';
import type { ResponsesUsage } from '../../wire/responses/responses-object-schema.ts';

/**
 * OpenAI semantics (docs/clients.md): `input_tokens` is the whole prompt, cached reads included and
 * reported again in `cached_tokens`; cache writes count as plain input because the dialect has no
 * field for them. Reasoning tokens are a subset of `output_tokens`.
 */
export function encodeResponsesUsage(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.inputTokens.total,
    input_tokens_details: { cached_tokens: usage.inputTokens.cacheRead },
    output_tokens: usage.outputTokens.total,
    output_tokens_details: { reasoning_tokens: usage.outputTokens.reasoning },
    total_tokens: usage.inputTokens.total + usage.outputTokens.total,
  };
}
