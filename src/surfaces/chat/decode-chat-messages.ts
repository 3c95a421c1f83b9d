import type {
  AssistantContentPart,
  CanonicalMessage,
  ReasoningPart,
  ToolCallPart,
  ToolResultPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import type { CallOrigins } from '../../canonical/call-origins.ts';
import { decodeChatContent } from './decode-chat-content.ts';
import { isJsonObject, reportUnknownFields, type JsonObject } from './chat-decode-support.ts';

const messageFields: Record<string, ReadonlySet<string>> = {
  system: new Set(['role', 'content']),
  developer: new Set(['role', 'content']),
  user: new Set(['role', 'content']),
  tool: new Set(['role', 'content', 'tool_call_id']),
  assistant: new Set(['role', 'content', 'tool_calls', 'reasoning_content', 'reasoning']),
};

/**
 * Fields an SDK copies when it replays a previous answer; empty values carry nothing. Non-empty
 * ones (a refusal text, annotations, an audio reference) cannot be carried and are issues.
 */
const neutralAssistantFields: Record<string, (value: unknown) => boolean> = {
  refusal: (value) => value === null,
  annotations: (value) => value === null || (Array.isArray(value) && value.length === 0),
  audio: (value) => value === null,
  function_call: (value) => value === null,
};
const toolCallFields = new Set(['id', 'type', 'function']);
const toolCallFunctionFields = new Set(['name', 'arguments']);

/**
 * Chat messages → canonical messages. `system` and `developer` both become canonical system
 * messages in place; consecutive `tool` messages become the tool-result parts of one user message
 * (docs/architecture.md).
 */
export function decodeChatMessages(
  messages: unknown,
  issues: TranslationIssue[],
  origins: CallOrigins,
): CanonicalMessage[] {
  if (!Array.isArray(messages)) {
    issues.push({ path: 'messages', reason: '`messages` must be an array.' });
    return [];
  }
  const result: CanonicalMessage[] = [];
  let openToolResults: ToolResultPart[] | undefined;
  messages.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    if (!isJsonObject(message)) {
      issues.push({ path, reason: 'A message must be an object.' });
      return;
    }
    const role = message['role'];
    const known = typeof role === 'string' ? messageFields[role] : undefined;
    if (known === undefined) {
      issues.push({ path: `${path}.role`, reason: `Unknown role \`${String(role)}\`.` });
      return;
    }
    reportMessageFields(message, known, path, issues);
    if (role === 'tool') {
      const part = decodeChatToolMessage(message, path, issues);
      if (openToolResults === undefined) {
        openToolResults = [];
        result.push(
          origins.record<CanonicalMessage>({ role: 'user', content: openToolResults }, path),
        );
      }
      if (part !== undefined) openToolResults.push(origins.record(part, path));
      return;
    }
    openToolResults = undefined;
    if (role === 'assistant') {
      result.push(
        origins.record<CanonicalMessage>(
          {
            role: 'assistant',
            content: decodeChatAssistantMessage(message, path, issues, origins),
          },
          path,
        ),
      );
    } else if (role === 'user') {
      const content: UserContentPart[] = decodeChatContent(
        message['content'],
        'text-and-image',
        `${path}.content`,
        issues,
        origins,
      );
      result.push(origins.record<CanonicalMessage>({ role: 'user', content }, path));
    } else {
      const content = decodeChatContent(
        message['content'],
        'text',
        `${path}.content`,
        issues,
        origins,
      );
      result.push(origins.record<CanonicalMessage>({ role: 'system', content }, path));
    }
  });
  return result;
}

function reportMessageFields(
  message: JsonObject,
  known: ReadonlySet<string>,
  path: string,
  issues: TranslationIssue[],
): void {
  for (const [key, value] of Object.entries(message)) {
    // null is absent (docs/translation.md): `parsed: null` from the SDK's stream helpers.
    if (value === null || known.has(key) || neutralAssistantFields[key]?.(value) === true) continue;
    issues.push({
      path: `${path}.${key}`,
      reason:
        key === 'name'
          ? 'Participant names on messages have no equivalent on this route.'
          : `\`${key}\` has no equivalent on this route.`,
    });
  }
}

function decodeChatToolMessage(
  message: JsonObject,
  path: string,
  issues: TranslationIssue[],
): ToolResultPart | undefined {
  const toolCallId = message['tool_call_id'];
  if (typeof toolCallId !== 'string') {
    issues.push({ path: `${path}.tool_call_id`, reason: 'A tool message needs `tool_call_id`.' });
    return undefined;
  }
  const raw = message['content'];
  const content =
    typeof raw === 'string'
      ? raw
      : decodeChatContent(raw, 'text-and-image', `${path}.content`, issues);
  return { type: 'tool-result', toolCallId, content };
}

function decodeChatAssistantMessage(
  message: JsonObject,
  path: string,
  issues: TranslationIssue[],
  origins: CallOrigins,
): AssistantContentPart[] {
  const parts: AssistantContentPart[] = [];
  const reasoning = decodeChatReasoning(message, path, issues);
  if (reasoning !== undefined) {
    const field =
      typeof message['reasoning_content'] === 'string' ? 'reasoning_content' : 'reasoning';
    parts.push(origins.record(reasoning, `${path}.${field}`));
  }
  const content = message['content'];
  // An empty or null assistant content means "no text" in chat (SDKs send "" beside tool_calls).
  if (content !== null && content !== '' && content !== undefined) {
    const text = decodeChatContent(content, 'text', `${path}.content`, issues, origins);
    parts.push(...text);
  }
  const toolCalls = message['tool_calls'];
  if (Array.isArray(toolCalls)) {
    toolCalls.forEach((toolCall: unknown, index) => {
      const callPath = `${path}.tool_calls[${index}]`;
      const part = decodeChatToolCall(toolCall, callPath, issues);
      if (part !== undefined) parts.push(origins.record(part, callPath));
    });
  } else if (toolCalls !== undefined && toolCalls !== null) {
    issues.push({ path: `${path}.tool_calls`, reason: '`tool_calls` must be an array.' });
  }
  return parts;
}

/**
 * `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, newer vLLM) carry unsigned
 * reasoning text (docs/clients.md, chat-style clients). Servers that send both send the same text.
 */
function decodeChatReasoning(
  message: JsonObject,
  path: string,
  issues: TranslationIssue[],
): ReasoningPart | undefined {
  const reasoningContent = message['reasoning_content'];
  const reasoning = message['reasoning'];
  for (const [key, value] of [
    ['reasoning_content', reasoningContent],
    ['reasoning', reasoning],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string') {
      issues.push({ path: `${path}.${key}`, reason: `\`${key}\` must be a string.` });
    }
  }
  const contentText = typeof reasoningContent === 'string' ? reasoningContent : undefined;
  const reasoningText = typeof reasoning === 'string' ? reasoning : undefined;
  if (contentText !== undefined && reasoningText !== undefined && contentText !== reasoningText) {
    issues.push({
      path: `${path}.reasoning`,
      reason: '`reasoning` and `reasoning_content` differ; send one of them.',
    });
  }
  const text = contentText ?? reasoningText;
  return text === undefined || text === '' ? undefined : { type: 'reasoning', text };
}

function decodeChatToolCall(
  toolCall: unknown,
  path: string,
  issues: TranslationIssue[],
): ToolCallPart | undefined {
  if (!isJsonObject(toolCall)) {
    issues.push({ path, reason: 'A tool call must be an object.' });
    return undefined;
  }
  if (toolCall['type'] !== 'function') {
    issues.push({
      path: `${path}.type`,
      reason: `Tool calls of type \`${String(toolCall['type'])}\` cannot be carried to other upstreams.`,
    });
    return undefined;
  }
  reportUnknownFields(toolCall, toolCallFields, path, issues);
  const id = toolCall['id'];
  const fn = toolCall['function'];
  if (typeof id !== 'string') {
    issues.push({ path: `${path}.id`, reason: 'A tool call needs a string `id`.' });
    return undefined;
  }
  if (!isJsonObject(fn) || typeof fn['name'] !== 'string' || typeof fn['arguments'] !== 'string') {
    issues.push({
      path: `${path}.function`,
      reason: 'A function tool call needs `function.name` and `function.arguments` strings.',
    });
    return undefined;
  }
  reportUnknownFields(fn, toolCallFunctionFields, `${path}.function`, issues);
  // The arguments stay the exact JSON text the client sent (canonical ToolCallPart.input).
  return { type: 'tool-call', toolCallId: id, toolName: fn['name'], input: fn['arguments'] };
}
