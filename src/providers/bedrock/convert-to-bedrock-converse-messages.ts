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
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import { walkConversation } from '../shared/walk-conversation.ts';

/** One Converse content block (`{text}`, `{image}`, `{toolUse}`, `{cachePoint}`…). */
export type ConverseBlock = Record<string, unknown>;

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseBlock[];
}

/** The image formats Converse takes (ImageBlock `format`), by media type. */
const imageFormats: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * A cache breakpoint is a block of its own in Converse (CachePointBlock), placed after the
 * content it closes; `ttl` is `5m` or `1h`, the default when absent being five minutes.
 */
export function converseCachePoint(cache: CacheHint | undefined): ConverseBlock[] {
  if (cache === undefined) return [];
  return [
    { cachePoint: { type: 'default', ...(cache.ttl !== undefined ? { ttl: cache.ttl } : {}) } },
  ];
}

// Converse refuses a text block whose text is blank; an empty one carries nothing.
const isEmptyText = (part: TextPart) => part.text.trim() === '' && part.cache === undefined;

function textBlocks(part: TextPart): ConverseBlock[] {
  return [{ text: part.text }, ...converseCachePoint(part.cache)];
}

function imageBlocks(part: ImagePart, path: string, issues: TranslationIssue[]): ConverseBlock[] {
  if (part.source.kind === 'url') {
    issues.push({ path, reason: 'Converse takes images as bytes, not by URL' });
    return [];
  }
  const format = imageFormats[part.source.mediaType];
  if (format === undefined) {
    issues.push({
      path,
      reason: `Converse has no image format for "${part.source.mediaType}" (png, jpeg, gif, webp)`,
    });
    return [];
  }
  // Blob members travel base64-encoded in the JSON protocol.
  return [
    { image: { format, source: { bytes: part.source.data } } },
    ...converseCachePoint(part.cache),
  ];
}

function userBlocks(
  part: UserContentPart,
  path: string,
  issues: TranslationIssue[],
): ConverseBlock[] {
  switch (part.type) {
    case 'text':
      return isEmptyText(part) ? [] : textBlocks(part);
    case 'image':
      return imageBlocks(part, path, issues);
    case 'tool-result': {
      const content =
        typeof part.content === 'string'
          ? [{ text: part.content }]
          : part.content.flatMap((item, index) => {
              const itemPath = `${path}.content[${index}]`;
              if (item.type === 'image') return imageBlocks(item, itemPath, issues);
              if (item.cache !== undefined) {
                issues.push({
                  path: itemPath,
                  reason: 'Converse has no cache point inside a tool result',
                });
              }
              return [{ text: item.text }];
            });
      return [
        {
          toolResult: {
            toolUseId: part.toolCallId,
            content,
            ...(part.isError === true ? { status: 'error' } : {}),
          },
        },
        ...converseCachePoint(part.cache),
      ];
    }
    default:
      return assertNever(part);
  }
}

function assistantBlocks(
  part: AssistantContentPart,
  path: string,
  finishedTurn: boolean,
  issues: TranslationIssue[],
): ConverseBlock[] {
  switch (part.type) {
    case 'text':
      return isEmptyText(part) ? [] : textBlocks(part);
    case 'reasoning':
      // docs/architecture.md: signed reasoning travels only back to the family that signed it;
      // reasoning a Converse model produced carries no family (decode-bedrock-converse-result.ts).
      if (part.provider === undefined) {
        if (part.redactedData !== undefined) {
          return [{ reasoningContent: { redactedContent: part.redactedData } }];
        }
        return [
          {
            reasoningContent: {
              reasoningText: {
                text: part.text,
                ...(part.signature !== undefined ? { signature: part.signature } : {}),
              },
            },
          },
        ];
      }
      // Models behind Converse drop the reasoning of finished turns themselves: leaving out what
      // could not be carried there changes nothing (equivalent).
      if (finishedTurn) return [];
      issues.push({
        path,
        reason: `reasoning signed by ${part.provider === 'openai' ? 'OpenAI' : 'Anthropic'} cannot be sent to a Converse model`,
      });
      return [];
    case 'tool-call': {
      const parsed =
        part.input.trim() === '' ? { ok: true as const, value: {} } : parseJsonText(part.input);
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        issues.push({ path: `${path}.input`, reason: 'tool arguments must be a JSON object' });
        return [];
      }
      return [
        { toolUse: { toolUseId: part.toolCallId, name: part.toolName, input: parsed.value } },
        ...converseCachePoint(part.cache),
      ];
    }
    default:
      return assertNever(part);
  }
}

export interface ConverseConversation {
  system: ConverseBlock[];
  messages: ConverseMessage[];
}

/**
 * Canonical messages as Converse `system` + `messages`. Leading system messages become system
 * blocks; Converse has no place for a system message inside the conversation. Consecutive
 * messages of one role are merged, since Converse wants the roles to alternate.
 */
export function convertToBedrockConverseMessages(
  messages: CanonicalMessage[],
  issues: TranslationIssue[],
): ConverseConversation {
  const system: ConverseBlock[] = [];
  const turns = walkConversation(messages, issues, 'Converse', {
    system(part) {
      if (!isEmptyText(part)) system.push(...textBlocks(part));
    },
    encode: (message, path, beforeCurrentTurn) =>
      message.content.flatMap((part, partIndex) => {
        const partPath = `${path}.content[${partIndex}]`;
        return message.role === 'user'
          ? userBlocks(part as UserContentPart, partPath, issues)
          : assistantBlocks(part as AssistantContentPart, partPath, beforeCurrentTurn, issues);
      }),
  });
  return { system, messages: turns.map(({ role, parts }) => ({ role, content: parts })) };
}
