import type { GenerationResult } from '../../canonical/generation-result.ts';
import type { MessagesResponseBody } from '../../wire/messages/messages-wire-types.ts';
import type { SurfaceEncodeContext } from '../surface-codec.ts';
import { omitsThinkingText } from './decode-messages-reasoning.ts';
import { renderMessagesAssistantBlock } from './encode-messages-content.ts';
import { mapMessagesStopReason } from './map-messages-stop-reason.ts';
import { renderMessagesUsage } from './render-messages-usage.ts';

/**
 * A finished generation as a message response. `stop_sequence` stays null: the
 * canonical finish reason does not carry which sequence matched. With `thinking.display:
 * "omitted"` thinking blocks keep their signature and lose their text (decisions/0011).
 */
export function encodeMessagesResult(
  result: GenerationResult,
  context: SurfaceEncodeContext,
  request?: Record<string, unknown>,
): MessagesResponseBody {
  const omitThinking = omitsThinkingText(request);
  return {
    id: context.responseId,
    type: 'message',
    role: 'assistant',
    content: result.content.map((part) => {
      const block = renderMessagesAssistantBlock(part);
      return omitThinking && block.type === 'thinking' ? { ...block, thinking: '' } : block;
    }),
    model: context.model,
    stop_reason: mapMessagesStopReason(result.finishReason),
    stop_sequence: null,
    usage: renderMessagesUsage(result.usage),
  };
}
