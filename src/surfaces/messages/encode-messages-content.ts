import type { AssistantContentPart, ReasoningPart } from '../../canonical/generation-call.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import type { MessagesAssistantBlock } from '../../wire/messages/messages-wire-types.ts';
import { encodeOpenAIReasoningSignature } from './messages-openai-reasoning-signature.ts';
import { encodeGoogleReasoningToken } from '../google-reasoning-token.ts';

/**
 * Tool arguments as the `input` object. Text that is not a JSON object (a model may emit broken
 * JSON) is passed on as the string it is, never replaced by `{}` (docs/clients.md).
 */
export function renderMessagesToolInput(input: string): unknown {
  if (input.trim() === '') return {};
  const parsed = parseJsonText(input);
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : input;
}

/** The `thinking` text shown for an OpenAI reasoning item: its summaries (docs/architecture.md). */
function openaiReasoningText(summary: string[] | undefined, text: string): string {
  return summary === undefined ? text : summary.join('\n\n');
}

function renderReasoning(part: ReasoningPart): MessagesAssistantBlock {
  if (part.provider === 'openai') {
    return {
      type: 'thinking',
      thinking: openaiReasoningText(part.summary, part.text),
      signature: encodeOpenAIReasoningSignature({
        ...(part.itemId !== undefined ? { itemId: part.itemId } : {}),
        ...(part.encryptedContent !== undefined ? { encryptedContent: part.encryptedContent } : {}),
        summary: part.summary ?? (part.text === '' ? [] : [part.text]),
      }),
    };
  }
  if (part.provider === 'google' && part.signature !== undefined) {
    const signature = encodeGoogleReasoningToken({ text: part.text, signature: part.signature });
    return { type: 'thinking', thinking: part.text, signature };
  }
  if (part.redactedData !== undefined)
    return { type: 'redacted_thinking', data: part.redactedData };
  // Unsigned reasoning (chat `reasoning_content`) carries an empty signature (architecture.md).
  return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
}

export function renderMessagesAssistantBlock(part: AssistantContentPart): MessagesAssistantBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return renderReasoning(part);
    case 'tool-call':
      return {
        type: 'tool_use',
        id: part.toolCallId,
        name: part.toolName,
        input: renderMessagesToolInput(part.input),
      };
    default:
      return assertNever(part);
  }
}
