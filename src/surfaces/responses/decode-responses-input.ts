import type { CallOrigins } from '../../canonical/call-origins.ts';
import type {
  AssistantContentPart,
  CanonicalMessage,
  TextPart,
  ToolResultPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import {
  decodeResponsesMessagePart,
  decodeResponsesToolOutput,
  type ResponsesContentRole,
} from './decode-responses-content.ts';
import { decodeResponsesReasoningItem } from './decode-responses-reasoning-item.ts';
import { isRecord, reportUnknownFields } from './responses-json-value.ts';
import { checkPlainFunctionName, qualifyNamespacedName } from './responses-namespace-name.ts';

/**
 * Fields that describe an item rather than its meaning: `id` of a message, `status`, Codex's
 * `phase` (commentary or final answer of a past turn) and its passthrough metadata. Replaying the
 * item without them loses nothing the model uses on another upstream.
 */
const itemMetadata = ['type', 'id', 'status', 'internal_chat_message_metadata_passthrough'];
const messageFields = new Set([...itemMetadata, 'role', 'content', 'phase']);
const functionCallFields = new Set([...itemMetadata, 'call_id', 'name', 'namespace', 'arguments']);
/** `name` and `namespace` repeat what the matching `function_call` says (Codex sends them). */
const functionCallOutputFields = new Set([
  ...itemMetadata,
  'call_id',
  'output',
  'name',
  'namespace',
]);

/**
 * The gateway expands its own compaction items and answers triggers before decoding
 * (src/compaction/, docs/decisions/0013); a `compaction` item still here was made by an OpenAI
 * responses upstream, which alone can read it.
 */
const compactionItemTypes = new Set(['compaction_trigger', 'compaction_summary']);

const roles: Record<string, ResponsesContentRole> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

/**
 * The `input` (after `instructions`) as canonical messages. Assistant-side items (messages,
 * reasoning, function calls) that follow each other form one assistant turn; consecutive function
 * call outputs form one user message of tool results (architecture.md: like chat's tool messages).
 * Function call `id`s stay item ids and `call_id`s stay tool call ids.
 */
export function decodeResponsesInput(
  input: unknown,
  instructions: unknown,
  issues: TranslationIssue[],
  origins: CallOrigins,
): CanonicalMessage[] {
  const messages: CanonicalMessage[] = [];
  if (typeof instructions === 'string' && instructions !== '') {
    const part = origins.record<TextPart>({ type: 'text', text: instructions }, 'instructions');
    messages.push(
      origins.record<CanonicalMessage>({ role: 'system', content: [part] }, 'instructions'),
    );
  } else if (
    instructions !== undefined &&
    instructions !== null &&
    typeof instructions !== 'string'
  ) {
    issues.push({ path: 'instructions', reason: 'Must be a string.' });
  }
  if (typeof input === 'string') {
    const part = origins.record<TextPart>({ type: 'text', text: input }, 'input');
    messages.push(origins.record<CanonicalMessage>({ role: 'user', content: [part] }, 'input'));
    return messages;
  }
  if (!Array.isArray(input)) {
    issues.push({ path: 'input', reason: 'Must be a string or an array of items.' });
    return messages;
  }

  const toolNames = new Map<string, string>();
  // Each part is located at the item (or content part) it came from; a merged message at its first.
  const addAssistant = (part: AssistantContentPart, path: string) => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') last.content.push(part);
    else
      messages.push(origins.record<CanonicalMessage>({ role: 'assistant', content: [part] }, path));
  };
  const addToolResult = (part: ToolResultPart, path: string) => {
    const last = messages.at(-1);
    if (last?.role === 'user' && last.content.every((entry) => entry.type === 'tool-result')) {
      last.content.push(part);
    } else {
      messages.push(origins.record<CanonicalMessage>({ role: 'user', content: [part] }, path));
    }
  };

  input.forEach((item: unknown, index) => {
    const path = `input[${index}]`;
    if (!isRecord(item)) {
      issues.push({ path, reason: 'An input item must be an object.' });
      return;
    }
    const type = item.type ?? 'message';
    if (type === 'message') {
      const message = decodeMessageItem(item, path, issues, origins);
      if (message?.role === 'assistant') {
        message.content.forEach((part) => addAssistant(part, path));
      } else if (message !== undefined) messages.push(message);
    } else if (type === 'function_call') {
      reportUnknownFields(item, functionCallFields, path, issues);
      const toolName = functionCallName(item, path, issues);
      if (
        typeof item.call_id !== 'string' ||
        typeof item.arguments !== 'string' ||
        toolName === undefined
      ) {
        issues.push({ path, reason: 'A function call needs string call_id, name and arguments.' });
        return;
      }
      toolNames.set(item.call_id, toolName);
      const part: AssistantContentPart = {
        type: 'tool-call',
        toolCallId: item.call_id,
        ...(typeof item.id === 'string' ? { itemId: item.id } : {}),
        toolName,
        input: item.arguments,
      };
      addAssistant(origins.record(part, path), path);
    } else if (type === 'function_call_output') {
      reportUnknownFields(item, functionCallOutputFields, path, issues);
      if (typeof item.call_id !== 'string') {
        issues.push({ path: `${path}.call_id`, reason: 'A function call output needs a call_id.' });
        return;
      }
      const toolName = toolNames.get(item.call_id);
      const part: ToolResultPart = {
        type: 'tool-result',
        toolCallId: item.call_id,
        ...(toolName !== undefined ? { toolName } : {}),
        content: decodeResponsesToolOutput(item.output, `${path}.output`, issues),
      };
      addToolResult(origins.record(part, path), path);
    } else if (type === 'reasoning') {
      const part = decodeResponsesReasoningItem(item, path, issues);
      if (part !== undefined) addAssistant(origins.record(part, path), path);
    } else {
      issues.push({ path, reason: unsupportedItemReason(String(type)) });
    }
  });
  return messages;
}

function unsupportedItemReason(type: string): string {
  if (type === 'compaction') {
    return 'This compaction item was made by an OpenAI responses upstream and can only go back to it.';
  }
  if (compactionItemTypes.has(type)) return 'Compaction is not available on this route yet.';
  if (type === 'item_reference') {
    // The responses state hook expands references before decoding (src/responses-state/).
    return 'Item references are only resolved where the gateway keeps responses; send the item itself.';
  }
  return `Input item type "${type}" has no equivalent on this route.`;
}

function functionCallName(
  item: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): string | undefined {
  if (typeof item.name !== 'string') return undefined;
  if (typeof item.namespace === 'string') return qualifyNamespacedName(item.namespace, item.name);
  const problem = checkPlainFunctionName(item.name);
  if (problem !== undefined) issues.push({ path: `${path}.name`, reason: problem });
  return item.name;
}

function decodeMessageItem(
  item: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
  origins: CallOrigins,
): CanonicalMessage | undefined {
  reportUnknownFields(item, messageFields, path, issues);
  const role = typeof item.role === 'string' ? roles[item.role] : undefined;
  if (role === undefined) {
    issues.push({
      path: `${path}.role`,
      reason: `Role "${String(item.role)}" has no equivalent on this route.`,
    });
    return undefined;
  }
  if (typeof item.content === 'string') {
    const part = origins.record<TextPart>({ type: 'text', text: item.content }, `${path}.content`);
    return origins.record<CanonicalMessage>({ role, content: [part] }, path);
  }
  if (!Array.isArray(item.content)) {
    issues.push({ path: `${path}.content`, reason: 'Must be a string or an array of parts.' });
    return undefined;
  }
  const parts = item.content
    .map((part: unknown, index) => {
      const partPath = `${path}.content[${index}]`;
      const decoded = decodeResponsesMessagePart(part, role, partPath, issues);
      return decoded === undefined ? undefined : origins.record(decoded, partPath);
    })
    .filter((part) => part !== undefined);
  if (role === 'user') {
    return origins.record<CanonicalMessage>(
      { role, content: parts satisfies UserContentPart[] },
      path,
    );
  }
  // Images were reported for the other roles, so only text parts are left.
  const texts = parts.filter((part): part is TextPart => part.type === 'text');
  return origins.record<CanonicalMessage>({ role, content: texts }, path);
}
