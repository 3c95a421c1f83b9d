import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

const unifiedByStopReason: Record<string, UnifiedFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
};

/** A Converse `stopReason` as `{unified, raw}`; the raw word is always kept. */
export function mapBedrockConverseStopReason(raw: unknown): FinishReason {
  if (typeof raw !== 'string') return { unified: 'other', raw: undefined };
  return { unified: unifiedByStopReason[raw] ?? 'other', raw };
}
