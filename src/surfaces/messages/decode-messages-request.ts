import type {
  AssistantContentPart,
  CanonicalMessage,
  GenerationCall,
  TextPart,
  TranslationIssue,
  UserContentPart,
} from '../../canonical/generation-call.ts';
import { CallOrigins } from '../../canonical/call-origins.ts';
import { omitNullFields } from '../../shared/omit-null-fields.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import type { DecodedRequest } from '../surface-codec.ts';
import { reportUnknownMessagesKeys } from './decode-messages-cache-control.ts';
import { decodeMessagesContextManagement } from './decode-messages-context-management.ts';
import {
  decodeMessagesAssistantBlock,
  decodeMessagesTextBlock,
  decodeMessagesUserBlock,
  type ToolNamesById,
} from './decode-messages-content.ts';
import { decodeMessagesOutputOptions } from './decode-messages-reasoning.ts';
import { decodeMessagesToolChoice, decodeMessagesTools } from './decode-messages-tools.ts';

/** Top-level fields with a canonical meaning; every other one is reported (architecture.md). */
const mappedFields = [
  'model',
  'max_tokens',
  'messages',
  'system',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'metadata',
  'context_management',
];

function decodeSystemContent(
  content: unknown,
  path: string,
  issues: TranslationIssue[],
  origins: CallOrigins,
): TextPart[] {
  if (typeof content === 'string') return [origins.record({ type: 'text', text: content }, path)];
  if (!Array.isArray(content)) {
    issues.push({ path, reason: 'system content must be a string or an array of text blocks' });
    return [];
  }
  const parts: TextPart[] = [];
  content.forEach((block: unknown, index) => {
    const blockPath = `${path}[${index}]`;
    if (isJsonObject(block) && block.type === 'text') {
      parts.push(origins.record(decodeMessagesTextBlock(block, blockPath, issues), blockPath));
    } else {
      issues.push({ path: blockPath, reason: 'only text blocks can carry system instructions' });
    }
  });
  return parts;
}

function decodeMessage(
  message: unknown,
  path: string,
  issues: TranslationIssue[],
  toolNames: ToolNamesById,
  origins: CallOrigins,
): CanonicalMessage | undefined {
  if (!isJsonObject(message)) {
    issues.push({ path, reason: 'a message must be an object' });
    return undefined;
  }
  reportUnknownMessagesKeys(message, ['role', 'content'], path, issues);
  const contentPath = `${path}.content`;
  if (message.role === 'system') {
    // docs/clients.md: Claude Code places system messages inside `messages`; keep their position.
    return origins.record<CanonicalMessage>(
      {
        role: 'system',
        content: decodeSystemContent(message.content, contentPath, issues, origins),
      },
      path,
    );
  }
  if (message.role !== 'user' && message.role !== 'assistant') {
    issues.push({ path: `${path}.role`, reason: 'role must be user, assistant or system' });
    return undefined;
  }
  const blocks: unknown[] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : Array.isArray(message.content)
        ? message.content
        : [];
  // A string content is one text part, found at `content` itself.
  const partPath = (index: number) =>
    typeof message.content === 'string' ? contentPath : `${contentPath}[${index}]`;
  if (message.role === 'user') {
    const content: UserContentPart[] = [];
    blocks.forEach((block, index) => {
      const blockPath = `${contentPath}[${index}]`;
      const part = isJsonObject(block)
        ? decodeMessagesUserBlock(block, blockPath, issues, toolNames)
        : undefined;
      if (part) content.push(origins.record(part, partPath(index)));
    });
    return origins.record<CanonicalMessage>({ role: 'user', content }, path);
  }
  const content: AssistantContentPart[] = [];
  blocks.forEach((block, index) => {
    const blockPath = `${contentPath}[${index}]`;
    const part = isJsonObject(block)
      ? decodeMessagesAssistantBlock(block, blockPath, issues, toolNames)
      : undefined;
    if (part) content.push(origins.record(part, partPath(index)));
  });
  return origins.record<CanonicalMessage>({ role: 'assistant', content }, path);
}

function decodeMetadata(metadata: unknown, issues: TranslationIssue[]): string | undefined {
  if (metadata === undefined) return undefined;
  if (!isJsonObject(metadata)) {
    issues.push({ path: 'metadata', reason: 'metadata must be an object' });
    return undefined;
  }
  reportUnknownMessagesKeys(metadata, ['user_id'], 'metadata', issues);
  return typeof metadata.user_id === 'string' ? metadata.user_id : undefined;
}

/**
 * Decodes a message-style request into the canonical call. The body was validated
 * by `messagesRequestSchema` (or `countTokensRequestSchema`, which has no `max_tokens`).
 */
export function decodeMessagesRequest(request: Record<string, unknown>): DecodedRequest {
  // A null field is absent on every route (docs/translation.md).
  const body = omitNullFields(request);
  const issues: TranslationIssue[] = [];
  const origins = new CallOrigins();
  recordFieldOrigins(body, origins);
  for (const key of Object.keys(body)) {
    if (!mappedFields.includes(key)) {
      issues.push({
        path: key,
        reason: `"${key}" has no equivalent outside the message-style dialect`,
      });
    }
  }
  const call: GenerationCall = {
    model: typeof body.model === 'string' ? body.model : '',
    messages: [],
    tools: decodeMessagesTools(body.tools, issues),
    stream: body.stream === true,
  };
  if (body.system !== undefined) {
    const system = decodeSystemContent(body.system, 'system', issues, origins);
    if (system.length > 0) {
      call.messages.push(
        origins.record<CanonicalMessage>({ role: 'system', content: system }, 'system'),
      );
    }
  }
  const toolNames: ToolNamesById = new Map();
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    const decoded = decodeMessage(message, `messages[${index}]`, issues, toolNames, origins);
    if (decoded) call.messages.push(decoded);
  });
  const { toolChoice, parallelToolCalls } = decodeMessagesToolChoice(body.tool_choice, issues);
  if (toolChoice !== undefined) call.toolChoice = toolChoice;
  if (parallelToolCalls !== undefined) call.parallelToolCalls = parallelToolCalls;
  if (typeof body.max_tokens === 'number') call.maxOutputTokens = body.max_tokens;
  if (typeof body.temperature === 'number') call.temperature = body.temperature;
  if (typeof body.top_p === 'number') call.topP = body.top_p;
  if (typeof body.top_k === 'number') call.topK = body.top_k;
  if (Array.isArray(body.stop_sequences)) {
    call.stopSequences = body.stop_sequences.filter((item) => typeof item === 'string');
  }
  decodeMessagesContextManagement(body.context_management, issues);
  const output = decodeMessagesOutputOptions(body.thinking, body.output_config, issues);
  if (output.reasoning !== undefined) call.reasoning = output.reasoning;
  if (output.responseFormat !== undefined) call.responseFormat = output.responseFormat;
  const user = decodeMetadata(body.metadata, issues);
  if (user !== undefined) call.user = user;
  return { value: call, issues, origins };
}

/** The message-style names of the canonical fields a provider may refuse. */
function recordFieldOrigins(body: Record<string, unknown>, origins: CallOrigins): void {
  origins.recordField('topK', 'top_k');
  origins.recordField('topP', 'top_p');
  origins.recordField('stopSequences', 'stop_sequences');
  origins.recordField('maxOutputTokens', 'max_tokens');
  origins.recordField('responseFormat', 'output_config.format');
  origins.recordField('user', 'metadata.user_id');
  origins.recordField('parallelToolCalls', 'tool_choice.disable_parallel_tool_use');
  const output = body.output_config;
  const effort = isJsonObject(output) && output.effort !== undefined;
  origins.recordField('reasoning', 'thinking');
  origins.recordField('reasoning.effort', effort ? 'output_config.effort' : 'thinking');
}
