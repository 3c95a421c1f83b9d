import type { AssistantContentPart, GenerationCall } from '../../canonical/generation-call.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { mapBedrockConverseStopReason } from './map-bedrock-converse-stop-reason.ts';
import { mapBedrockConverseUsage } from './map-bedrock-converse-usage.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Reasoning a Converse model produced. It names no family (`provider` stays unset): its signature,
 * when there is one, goes back only to a Converse model (convert-to-bedrock-converse-messages.ts).
 */
function decodeReasoning(block: Record<string, unknown>): AssistantContentPart | undefined {
  if (typeof block.redactedContent === 'string') {
    return { type: 'reasoning', text: '', redactedData: block.redactedContent };
  }
  const reasoning = isJsonObject(block.reasoningText) ? block.reasoningText : undefined;
  if (reasoning === undefined) return undefined;
  const signature = text(reasoning.signature);
  return {
    type: 'reasoning',
    text: text(reasoning.text),
    ...(signature !== '' ? { signature } : {}),
  };
}

function decodeBlock(block: unknown): AssistantContentPart | undefined {
  if (!isJsonObject(block)) return undefined;
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (isJsonObject(block.toolUse)) {
    const use = block.toolUse;
    return {
      type: 'tool-call',
      toolCallId: text(use.toolUseId),
      toolName: text(use.name),
      input: JSON.stringify(use.input ?? {}),
    };
  }
  if (isJsonObject(block.reasoningContent)) return decodeReasoning(block.reasoningContent);
  // Citations and guard content come only from features a translated call never enables.
  return undefined;
}

/** A non-streamed Converse answer, read leniently: unknown fields are ignored. */
export function decodeBedrockConverseResult(
  body: unknown,
  _call: GenerationCall,
): GenerationResult {
  const answer = isJsonObject(body) ? body : {};
  const output = isJsonObject(answer.output) ? answer.output : {};
  const message = isJsonObject(output.message) ? output.message : {};
  const content = Array.isArray(message.content) ? message.content : [];
  return {
    content: content.map(decodeBlock).filter((part) => part !== undefined),
    finishReason: mapBedrockConverseStopReason(answer.stopReason),
    usage: mapBedrockConverseUsage(answer.usage),
  };
}
