import type { ReasoningConfig, ReasoningEffort } from '../../canonical/generation-call.ts';

type OpenAIEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * A thinking budget (Anthropic) as an effort level. Thresholds follow the budgets clients use:
 * Claude Code asks 4 000 ("think"), 10 000 ("think hard") and 31 999 ("ultrathink") tokens, which
 * become low, medium and high.
 */
export function effortForBudget(budgetTokens: number): OpenAIEffort {
  if (budgetTokens <= 4096) return 'low';
  if (budgetTokens <= 16384) return 'medium';
  return 'high';
}

/** `max` (Anthropic's highest effort) is the highest level, which OpenAI calls `xhigh`. */
function effortFor(effort: ReasoningEffort): OpenAIEffort {
  return effort === 'max' ? 'xhigh' : effort;
}

export interface OpenAIResponsesReasoning {
  reasoning?: { effort?: OpenAIEffort; summary?: 'auto' | 'concise' | 'detailed' };
  /** Reasoning on: ask for the encrypted content so the next turn can replay it (store is false). */
  include?: string[];
}

export function mapReasoningToOpenAIResponses(
  config: ReasoningConfig | undefined,
): OpenAIResponsesReasoning {
  if (config === undefined) return {};
  const include = ['reasoning.encrypted_content'];
  switch (config.type) {
    case 'disabled':
      return { reasoning: { effort: 'none' } };
    case 'budget':
      return { reasoning: { effort: effortForBudget(config.budgetTokens) }, include };
    case 'effort': {
      const reasoning = {
        ...(config.effort !== undefined ? { effort: effortFor(config.effort) } : {}),
        ...(config.summary !== undefined ? { summary: config.summary } : {}),
      };
      return { include, ...(Object.keys(reasoning).length > 0 ? { reasoning } : {}) };
    }
  }
}
