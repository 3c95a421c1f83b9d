import type { ReasoningConfig } from '../../canonical/generation-call.ts';

export type OpenAIChatReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Thinking budgets (Anthropic `budget_tokens`) → the nearest OpenAI effort level. The steps put
 * the budgets clients commonly send on distinct levels: 4 000 ("think") → low, 10 000 ("think
 * hard") → medium, 32 000 ("ultrathink") → high. Documented in docs/translation/chat-openai-chat.md.
 */
const budgetEffortSteps: ReadonlyArray<{
  below: number;
  effort: OpenAIChatReasoningEffort;
}> = [
  { below: 1024, effort: 'minimal' },
  { below: 8192, effort: 'low' },
  { below: 16384, effort: 'medium' },
];

/** Canonical reasoning → chat `reasoning_effort`; `undefined` leaves the model's default. */
export function mapOpenAIChatReasoningEffort(
  config: ReasoningConfig,
): OpenAIChatReasoningEffort | undefined {
  switch (config.type) {
    case 'disabled':
      return 'none';
    case 'budget':
      return budgetEffortSteps.find((step) => config.budgetTokens < step.below)?.effort ?? 'high';
    case 'effort':
      // Anthropic's top level `max` is OpenAI's top level `xhigh`.
      return config.effort === 'max' ? 'xhigh' : config.effort;
  }
}
