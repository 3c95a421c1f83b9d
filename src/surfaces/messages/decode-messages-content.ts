import type {
  AssistantContentPart,
  ImagePart,
  ReasoningPart,
  TextPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import {
  decodeMessagesCacheControl,
  reportUnknownMessagesKeys,
} from './decode-messages-cache-control.ts';
import {
  decodeOpenAIReasoningSignature,
  isOpenAIReasoningSignature,
} from './messages-openai-reasoning-signature.ts';
import { decodeGoogleReasoningToken, isGoogleReasoningToken } from '../google-reasoning-token.ts';
import { copyWith } from '../../shared/copy-with.ts';

/** Tool names by `tool_use.id`, so that tool results can carry the name (canonical `toolName`). */
export type ToolNamesById = Map<string, string>;

function withCache<T extends object>(
  part: T,
  value: unknown,
  path: string,
  issues: TranslationIssue[],
) {
  const cache = decodeMessagesCacheControl(value, `${path}.cache_control`, issues);
  return cache === undefined ? part : copyWith(part, { cache });
}

function unsupportedBlock(
  block: Record<string, unknown>,
  where: string,
  path: string,
): TranslationIssue {
  const type = typeof block.type === 'string' ? block.type : 'untyped';
  return {
    path,
    reason: `a "${type}" block ${where} has no equivalent outside the message-style dialect`,
  };
}

export function decodeMessagesTextBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): TextPart {
  reportUnknownMessagesKeys(block, ['type', 'text', 'cache_control'], path, issues);
  const text = typeof block.text === 'string' ? block.text : '';
  return withCache({ type: 'text', text }, block.cache_control, path, issues);
}

export function decodeMessagesImageBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): ImagePart | undefined {
  reportUnknownMessagesKeys(block, ['type', 'source', 'cache_control'], path, issues);
  const source = block.source;
  const sourcePath = `${path}.source`;
  if (!isJsonObject(source)) {
    issues.push({ path: sourcePath, reason: 'an image source must be an object' });
    return undefined;
  }
  if (source.type === 'base64') {
    reportUnknownMessagesKeys(source, ['type', 'media_type', 'data'], sourcePath, issues);
    if (typeof source.media_type !== 'string' || typeof source.data !== 'string') {
      issues.push({ path: sourcePath, reason: 'a base64 image needs media_type and data' });
      return undefined;
    }
    const part: ImagePart = {
      type: 'image',
      source: { kind: 'base64', mediaType: source.media_type, data: source.data },
    };
    return withCache(part, block.cache_control, path, issues);
  }
  if (source.type === 'url') {
    reportUnknownMessagesKeys(source, ['type', 'url'], sourcePath, issues);
    if (typeof source.url !== 'string') {
      issues.push({ path: `${sourcePath}.url`, reason: 'an image url must be a string' });
      return undefined;
    }
    const part: ImagePart = { type: 'image', source: { kind: 'url', url: source.url } };
    return withCache(part, block.cache_control, path, issues);
  }
  issues.push({
    path: `${sourcePath}.type`,
    reason: `image source "${String(source.type)}" (e.g. an uploaded file) has no equivalent outside the message-style dialect`,
  });
  return undefined;
}

function decodeToolResultBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
  toolNames: ToolNamesById,
): UserContentPart | undefined {
  const known = ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'];
  reportUnknownMessagesKeys(block, known, path, issues);
  const toolCallId = typeof block.tool_use_id === 'string' ? block.tool_use_id : '';
  let content: string | Array<TextPart | ImagePart> = '';
  if (typeof block.content === 'string') {
    content = block.content;
  } else if (Array.isArray(block.content)) {
    content = [];
    block.content.forEach((item: unknown, index) => {
      const itemPath = `${path}.content[${index}]`;
      if (!isJsonObject(item)) {
        issues.push({ path: itemPath, reason: 'a tool result block must be an object' });
      } else if (item.type === 'text') {
        (content as TextPart[]).push(decodeMessagesTextBlock(item, itemPath, issues));
      } else if (item.type === 'image') {
        const image = decodeMessagesImageBlock(item, itemPath, issues);
        if (image) (content as ImagePart[]).push(image);
      } else {
        issues.push(unsupportedBlock(item, 'inside a tool result', itemPath));
      }
    });
  }
  const toolName = toolNames.get(toolCallId);
  return withCache(
    {
      type: 'tool-result' as const,
      toolCallId,
      ...(toolName !== undefined ? { toolName } : {}),
      content,
      ...(typeof block.is_error === 'boolean' ? { isError: block.is_error } : {}),
    },
    block.cache_control,
    path,
    issues,
  );
}

export function decodeMessagesUserBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
  toolNames: ToolNamesById,
): UserContentPart | undefined {
  switch (block.type) {
    case 'text':
      return decodeMessagesTextBlock(block, path, issues);
    case 'image':
      return decodeMessagesImageBlock(block, path, issues);
    case 'tool_result':
      return decodeToolResultBlock(block, path, issues, toolNames);
    default:
      issues.push(unsupportedBlock(block, 'in a user message', path));
      return undefined;
  }
}

function decodeThinkingBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): ReasoningPart | undefined {
  reportUnknownMessagesKeys(block, ['type', 'thinking', 'signature'], path, issues);
  const text = typeof block.thinking === 'string' ? block.thinking : '';
  const signature = typeof block.signature === 'string' ? block.signature : '';
  // docs/architecture.md conventions: "" marks unsigned reasoning, `sy1.openai.` an OpenAI item,
  // `sy1.google.` a Gemini signature.
  if (signature === '') return { type: 'reasoning', text };
  if (isGoogleReasoningToken(signature)) {
    const reasoning = decodeGoogleReasoningToken(signature);
    if (reasoning === undefined) {
      issues.push({ path: `${path}.signature`, reason: 'the reasoning signature was altered' });
    }
    return reasoning;
  }
  if (!isOpenAIReasoningSignature(signature)) {
    return { type: 'reasoning', text, signature, provider: 'anthropic' };
  }
  const token = decodeOpenAIReasoningSignature(signature);
  if (token === undefined) {
    issues.push({ path: `${path}.signature`, reason: 'the reasoning signature was altered' });
    return undefined;
  }
  return {
    type: 'reasoning',
    text,
    provider: 'openai',
    ...(token.itemId !== undefined ? { itemId: token.itemId } : {}),
    ...(token.encryptedContent !== undefined ? { encryptedContent: token.encryptedContent } : {}),
    summary: token.summary,
  };
}

export function decodeMessagesAssistantBlock(
  block: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
  toolNames: ToolNamesById,
): AssistantContentPart | undefined {
  switch (block.type) {
    case 'text':
      return decodeMessagesTextBlock(block, path, issues);
    case 'thinking':
      return decodeThinkingBlock(block, path, issues);
    case 'redacted_thinking': {
      reportUnknownMessagesKeys(block, ['type', 'data'], path, issues);
      const redactedData = typeof block.data === 'string' ? block.data : '';
      return { type: 'reasoning', text: '', redactedData, provider: 'anthropic' };
    }
    case 'tool_use': {
      reportUnknownMessagesKeys(
        block,
        ['type', 'id', 'name', 'input', 'cache_control'],
        path,
        issues,
      );
      const toolCallId = typeof block.id === 'string' ? block.id : '';
      const toolName = typeof block.name === 'string' ? block.name : '';
      toolNames.set(toolCallId, toolName);
      // The client sent an object: its JSON text is the canonical form of the arguments.
      const input = JSON.stringify(block.input ?? {});
      return withCache(
        { type: 'tool-call' as const, toolCallId, toolName, input },
        block.cache_control,
        path,
        issues,
      );
    }
    default:
      issues.push(unsupportedBlock(block, 'in an assistant message', path));
      return undefined;
  }
}
