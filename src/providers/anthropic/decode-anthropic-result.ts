import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { AssistantContentPart, GenerationCall } from '../../canonical/generation-call.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import type { Usage } from '../../canonical/usage.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-anthropic-usage.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function decodeBlock(block: unknown): AssistantContentPart | undefined {
  if (!isJsonObject(block)) return undefined;
  switch (block.type) {
    case 'text':
      return { type: 'text', text: text(block.text) };
    case 'thinking':
      return {
        type: 'reasoning',
        text: text(block.thinking),
        signature: text(block.signature),
        provider: 'anthropic',
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: text(block.data), provider: 'anthropic' };
    case 'tool_use':
      return {
        type: 'tool-call',
        toolCallId: text(block.id),
        toolName: text(block.name),
        input: JSON.stringify(block.input ?? {}),
      };
    default:
      // Other blocks come only from server tools, which a cross-dialect call never enables.
      return undefined;
  }
}

/**
 * Usage and finish reason of a non-streamed Anthropic message body (the fast path's reader),
 * or undefined when the body reports no usage.
 */
export function readAnthropicResultUsage(
  body: unknown,
): { usage: Usage; finishReason: FinishReason } | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.usage)) return undefined;
  return {
    usage: mapAnthropicUsage(mergeAnthropicUsage({}, body.usage)),
    finishReason: mapAnthropicStopReason(body.stop_reason),
  };
}

/** A non-streamed Anthropic message body, read leniently: unknown fields are ignored. */
export function decodeAnthropicResult(body: unknown, _call: GenerationCall): GenerationResult {
  const message = isJsonObject(body) ? body : {};
  const content = Array.isArray(message.content) ? message.content : [];
  // Optional members last: a literal that starts with a spread is slow on Node 20 (copy-with.ts).
  return {
    content: content.map(decodeBlock).filter((part) => part !== undefined),
    finishReason: mapAnthropicStopReason(message.stop_reason),
    usage: mapAnthropicUsage(mergeAnthropicUsage({}, message.usage)),
    ...(typeof message.id === 'string' ? { id: message.id } : {}),
    ...(typeof message.model === 'string' ? { model: message.model } : {}),
  };
}
