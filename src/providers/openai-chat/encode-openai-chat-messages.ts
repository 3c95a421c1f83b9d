import type {
  AssistantContentPart,
  CanonicalMessage,
  ImagePart,
  ReasoningPart,
  TextPart,
  ToolResultPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import type { OpenAIToolNames } from '../shared/openai-tool-names.ts';
import { markToolError } from '../shared/mark-tool-error.ts';

type ChatMessageBody = Record<string, unknown>;
type ChatContentPartBody = Record<string, unknown>;

/**
 * Canonical messages → chat messages. Cache hints are left out on purpose: OpenAI caches prompt
 * prefixes automatically, so they are equivalent (docs/translation/chat-openai-chat.md). Issues
 * name canonical paths (`messages[3].content[1]`).
 */
export function encodeOpenAIChatMessages(
  messages: CanonicalMessage[],
  names: OpenAIToolNames,
  issues: TranslationIssue[],
): ChatMessageBody[] {
  const result: ChatMessageBody[] = [];
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'system':
        result.push({ role: 'system', content: encodeTextContent(message.content) });
        break;
      case 'user':
        result.push(...encodeUserMessage(message.content, path, issues));
        break;
      case 'assistant':
        result.push(encodeAssistantMessage(message.content, path, names, issues));
        break;
    }
  });
  return result;
}

/** One text stays a plain string (what every OpenAI-compatible server accepts). */
function encodeTextContent(parts: TextPart[]): string | ChatContentPartBody[] {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0].text;
  if (parts.length === 0) return '';
  return parts.map((part) => ({ type: 'text', text: part.text }));
}

function encodeImage(part: ImagePart): ChatContentPartBody {
  const url =
    part.source.kind === 'base64'
      ? `data:${part.source.mediaType};base64,${part.source.data}`
      : part.source.url;
  return { type: 'image_url', image_url: { url } };
}

/**
 * Tool results become `role: "tool"` messages, in order, ahead of the user's other content: chat
 * requires them right after the assistant's tool calls (docs/architecture.md).
 */
function encodeUserMessage(
  content: UserContentPart[],
  path: string,
  issues: TranslationIssue[],
): ChatMessageBody[] {
  const toolMessages: ChatMessageBody[] = [];
  const rest: Array<TextPart | ImagePart> = [];
  content.forEach((part, index) => {
    if (part.type === 'tool-result') {
      toolMessages.push(encodeToolResult(part, `${path}.content[${index}]`, issues));
    } else {
      rest.push(part);
    }
  });
  if (toolMessages.length > 0 && rest.length === 0) return toolMessages;
  const userContent = rest.every((part) => part.type === 'text')
    ? encodeTextContent(rest)
    : rest.map((part) =>
        part.type === 'text' ? { type: 'text', text: part.text } : encodeImage(part),
      );
  return [...toolMessages, { role: 'user', content: userContent }];
}

function encodeToolResult(
  part: ToolResultPart,
  path: string,
  issues: TranslationIssue[],
): ChatMessageBody {
  const failed = part.isError === true;
  if (typeof part.content === 'string') {
    const content = failed ? markToolError(part.content) : part.content;
    return { role: 'tool', tool_call_id: part.toolCallId, content };
  }
  const texts: TextPart[] = [];
  part.content.forEach((item, index) => {
    if (item.type === 'text') texts.push(item);
    else {
      issues.push({
        path: `${path}.content[${index}]`,
        reason: 'Chat tool messages carry text only; images in tool results cannot be sent.',
      });
    }
  });
  const [first, ...others] = texts;
  const marked =
    failed && first !== undefined
      ? [{ ...first, text: markToolError(first.text) }, ...others]
      : texts;
  if (failed && first === undefined) marked.push({ type: 'text', text: markToolError('') });
  return { role: 'tool', tool_call_id: part.toolCallId, content: encodeTextContent(marked) };
}

function encodeAssistantMessage(
  content: AssistantContentPart[],
  path: string,
  names: OpenAIToolNames,
  issues: TranslationIssue[],
): ChatMessageBody {
  const texts: TextPart[] = [];
  const toolCalls: ChatMessageBody[] = [];
  let reasoning = '';
  content.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        texts.push(part);
        break;
      case 'reasoning':
        if (isSigned(part)) {
          issues.push({
            path: `${path}.content[${index}]`,
            reason: `Signed reasoning from ${part.provider ?? 'another provider'} only travels back to that provider; a chat upstream cannot read it.`,
          });
        } else {
          reasoning += part.text;
        }
        break;
      case 'tool-call':
        // The response item id (`itemId`) has no chat field; the call id is what links results.
        toolCalls.push({
          id: part.toolCallId,
          type: 'function',
          function: { name: names.toUpstream(part.toolName), arguments: part.input },
        });
        break;
    }
  });
  const message: ChatMessageBody = {
    role: 'assistant',
    content: texts.length === 0 && toolCalls.length > 0 ? null : encodeTextContent(texts),
  };
  if (toolCalls.length > 0) message['tool_calls'] = toolCalls;
  // DeepSeek, vLLM and others read unsigned reasoning back as `reasoning_content`
  // (docs/clients.md).
  if (reasoning !== '') message['reasoning_content'] = reasoning;
  return message;
}

function isSigned(part: ReasoningPart): boolean {
  return (
    part.provider !== undefined ||
    part.signature !== undefined ||
    part.redactedData !== undefined ||
    part.encryptedContent !== undefined
  );
}
