import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

/**
 * Gemini's `finishReason` words (GenerateContentResponse.Candidate.FinishReason) and the prompt
 * block reasons (`promptFeedback.blockReason`). A block for safety, recitation or a policy is a
 * content filter, never an error: Gemini answers it with 200.
 */
const unifiedByFinishReason: Record<string, UnifiedFinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  BLOCKLIST: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  LANGUAGE: 'other',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  OTHER: 'other',
  FINISH_REASON_UNSPECIFIED: 'other',
};

/**
 * A candidate's `finishReason` as `{unified, raw}`. Gemini says STOP after function calls too;
 * the turn then waits for their results, which the unified reason says.
 */
export function mapGeminiFinishReason(raw: unknown, calledTools: boolean): FinishReason {
  if (typeof raw !== 'string') return { unified: 'other', raw: undefined };
  const unified = unifiedByFinishReason[raw] ?? 'other';
  return { unified: unified === 'stop' && calledTools ? 'tool-calls' : unified, raw };
}

/** A prompt Gemini refused to answer (`promptFeedback.blockReason`, no candidates). */
export function mapGeminiBlockReason(raw: string): FinishReason {
  return { unified: 'content-filter', raw };
}
