import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

const messagesStopReasons = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

const fromUnified: Record<UnifiedFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  refusal: 'refusal',
  pause: 'pause_turn',
  // The dialect has no word for these; an error mid-stream is reported as an `error` event.
  error: 'end_turn',
  other: 'end_turn',
};

/** architecture.md: the raw word when the upstream already spoke this dialect, else the mapping. */
export function mapMessagesStopReason(reason: FinishReason): string {
  if (reason.raw !== undefined && messagesStopReasons.has(reason.raw)) return reason.raw;
  return fromUnified[reason.unified];
}
