import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * Each chat word maps to a distinct unified reason, so mapping the unified reason back renders
 * the upstream's raw word whenever the upstream spoke chat (architecture.md: raw word for the own
 * dialect) and the nearest chat word otherwise.
 */
const chatWordFor: Record<UnifiedFinishReason, ChatFinishReason> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  refusal: 'content_filter',
  // A paused server-side tool loop, an error or an unknown reason: the turn is over and chat has
  // no closer word; clients read `stop` as "the model is done".
  pause: 'stop',
  error: 'stop',
  other: 'stop',
};

export function renderChatFinishReason(reason: FinishReason): ChatFinishReason {
  return chatWordFor[reason.unified];
}
