import type {
  AssistantContentPart,
  CacheHint,
  CanonicalMessage,
  ImagePart,
  TextPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { walkConversation } from '../shared/walk-conversation.ts';
import {
  isJsonObject,
  parseJsonText,
  type JsonTextResult,
} from '../../wire/messages/messages-json-text.ts';
import type {
  MessagesAssistantBlock,
  MessagesCacheControl,
  MessagesImageBlock,
  MessagesTextBlock,
  MessagesUserBlock,
  MessagesWireMessage,
} from '../../wire/messages/messages-wire-types.ts';

export function toAnthropicCacheControl(cache: CacheHint | undefined): {
  cache_control?: MessagesCacheControl;
} {
  if (cache === undefined) return {};
  return {
    cache_control: { type: 'ephemeral', ...(cache.ttl !== undefined ? { ttl: cache.ttl } : {}) },
  };
}

// The Messages API rejects text blocks without non-whitespace text; an empty one carries nothing.
const isEmptyText = (part: TextPart) => part.text.trim() === '' && part.cache === undefined;

function textBlock(part: TextPart): MessagesTextBlock {
  return { type: 'text', text: part.text, ...toAnthropicCacheControl(part.cache) };
}

function imageBlock(part: ImagePart): MessagesImageBlock {
  const source =
    part.source.kind === 'base64'
      ? { type: 'base64' as const, media_type: part.source.mediaType, data: part.source.data }
      : { type: 'url' as const, url: part.source.url };
  return { type: 'image', source, ...toAnthropicCacheControl(part.cache) };
}

function userBlock(part: UserContentPart): MessagesUserBlock | undefined {
  switch (part.type) {
    case 'text':
      return isEmptyText(part) ? undefined : textBlock(part);
    case 'image':
      return imageBlock(part);
    case 'tool-result':
      return {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        content:
          typeof part.content === 'string'
            ? part.content
            : part.content.map((item) =>
                item.type === 'text' ? textBlock(item) : imageBlock(item),
              ),
        ...(part.isError !== undefined ? { is_error: part.isError } : {}),
        ...toAnthropicCacheControl(part.cache),
      };
    default:
      return assertNever(part);
  }
}

function assistantBlock(
  part: AssistantContentPart,
  path: string,
  finishedTurn: boolean,
  issues: TranslationIssue[],
): MessagesAssistantBlock | undefined {
  switch (part.type) {
    case 'text':
      return isEmptyText(part) ? undefined : textBlock(part);
    case 'reasoning':
      if (part.provider === 'anthropic' && part.redactedData !== undefined) {
        return { type: 'redacted_thinking', data: part.redactedData };
      }
      if (part.provider === 'anthropic' && part.signature !== undefined) {
        return { type: 'thinking', thinking: part.text, signature: part.signature };
      }
      // Anthropic removes the thinking of finished turns from the context (find-current-turn-start):
      // reasoning it could not carry changes nothing there, so it is left out (equivalent).
      if (finishedTurn) return undefined;
      // docs/architecture.md: signed reasoning travels only back to the family that signed it.
      if (part.provider === 'openai' || part.provider === 'google') {
        const family = part.provider === 'openai' ? 'OpenAI' : 'Gemini';
        issues.push({ path, reason: `reasoning signed by ${family} cannot be sent to Anthropic` });
        return undefined;
      }
      if (part.text !== '') {
        issues.push({ path, reason: 'unsigned reasoning cannot be sent to Anthropic' });
      }
      return undefined;
    case 'tool-call': {
      const parsed: JsonTextResult =
        part.input.trim() === '' ? { ok: true, value: {} } : parseJsonText(part.input);
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        issues.push({ path: `${path}.input`, reason: 'tool arguments must be a JSON object' });
        return undefined;
      }
      return {
        type: 'tool_use',
        id: part.toolCallId,
        name: part.toolName,
        input: parsed.value,
        ...toAnthropicCacheControl(part.cache),
      };
    }
    default:
      return assertNever(part);
  }
}

export interface AnthropicConversation {
  system: MessagesTextBlock[];
  messages: MessagesWireMessage[];
}

/**
 * Canonical messages as Anthropic `system` + `messages`. Leading system messages become system
 * blocks; a system message inside the conversation has no place in the Messages API. Consecutive
 * messages of one role are merged (tool results after tool results, as chat clients send them).
 */
export function convertToAnthropicMessages(
  messages: CanonicalMessage[],
  issues: TranslationIssue[],
): AnthropicConversation {
  const system: MessagesTextBlock[] = [];
  const turns = walkConversation(messages, issues, 'Anthropic', {
    system(part) {
      if (!isEmptyText(part)) system.push(textBlock(part));
    },
    encode(message, path, beforeCurrentTurn) {
      const content: Array<MessagesUserBlock | MessagesAssistantBlock> = [];
      message.content.forEach((part, partIndex) => {
        const block =
          message.role === 'user'
            ? userBlock(part as UserContentPart)
            : assistantBlock(
                part as AssistantContentPart,
                `${path}.content[${partIndex}]`,
                beforeCurrentTurn,
                issues,
              );
        if (block) content.push(block);
      });
      return content;
    },
  });
  return {
    system,
    messages: turns.map(({ role, parts }) => ({ role, content: parts }) as MessagesWireMessage),
  };
}
