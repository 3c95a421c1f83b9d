import type { Usage } from '../../canonical/usage.ts';

/** The usage object of a chat answer, in OpenAI's own semantics. */
export interface ChatUsageBody {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/**
 * OpenAI counts the whole prompt in `prompt_tokens`, cached reads included (docs/clients.md); cache
 * writes, which OpenAI has no field for, are part of the prompt too, so the canonical total is
 * exactly `prompt_tokens`.
 */
export function renderChatUsage(usage: Usage): ChatUsageBody {
  return {
    prompt_tokens: usage.inputTokens.total,
    completion_tokens: usage.outputTokens.total,
    total_tokens: usage.inputTokens.total + usage.outputTokens.total,
    prompt_tokens_details: { cached_tokens: usage.inputTokens.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.outputTokens.reasoning },
  };
}
