import type { UpstreamDialect } from '../providers/provider-transport.ts';
/**
 * Characters of answer (text, reasoning, tool arguments) that one relayed event carries, read
 * from its parsed data: what a stream cut short is billed for when the upstream's own count never
 * arrived (docs/decisions/0016). Each reads only the fields its dialect puts deltas in.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function length(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/** Anthropic: `content_block_delta` with a text, thinking or partial_json delta. */
export function countAnthropicRelayedText(data: unknown): number {
  if (!isObject(data) || data.type !== 'content_block_delta' || !isObject(data.delta)) return 0;
  const { delta } = data;
  return length(delta.text) + length(delta.thinking) + length(delta.partial_json);
}

/** Chat: each choice's content, reasoning and tool-call argument deltas. */
export function countChatRelayedText(data: unknown): number {
  if (!isObject(data) || !Array.isArray(data.choices)) return 0;
  let characters = 0;
  for (const choice of data.choices) {
    if (!isObject(choice) || !isObject(choice.delta)) continue;
    const { delta } = choice;
    characters +=
      length(delta.content) +
      length(delta.reasoning_content) +
      length(delta.reasoning) +
      length(delta.refusal);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        if (isObject(call) && isObject(call.function))
          characters += length(call.function.arguments);
      }
    }
  }
  return characters;
}

/** Responses: every `*.delta` event (output text, refusal, reasoning, function arguments). */
export function countResponsesRelayedText(data: unknown): number {
  if (!isObject(data) || typeof data.type !== 'string' || !data.type.endsWith('.delta')) return 0;
  return length(data.delta);
}

/**
 * Characters of answer in a whole (non-streamed) answer, in the upstream's dialect: what a
 * complete answer without a usage report is billed for (docs/decisions/0016), so an upstream
 * that leaves usage out never gives its output away.
 */
export const countAnswerText: Record<UpstreamDialect, (body: unknown) => number> = {
  anthropic(body) {
    if (!isObject(body) || !Array.isArray(body.content)) return 0;
    let characters = 0;
    for (const block of body.content) {
      if (!isObject(block)) continue;
      characters += length(block.text) + length(block.thinking);
      if (block.input !== undefined) characters += JSON.stringify(block.input).length;
    }
    return characters;
  },
  'openai-chat'(body) {
    if (!isObject(body) || !Array.isArray(body.choices)) return 0;
    let characters = 0;
    for (const choice of body.choices) {
      if (!isObject(choice) || !isObject(choice.message)) continue;
      const { message } = choice;
      characters +=
        contentLength(message.content) +
        length(message.reasoning_content) +
        length(message.reasoning) +
        length(message.refusal);
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          if (isObject(call) && isObject(call.function))
            characters += length(call.function.arguments);
        }
      }
    }
    return characters;
  },
  'openai-responses'(body) {
    if (!isObject(body) || !Array.isArray(body.output)) return 0;
    let characters = 0;
    for (const item of body.output) {
      if (!isObject(item)) continue;
      characters +=
        contentLength(item.content) +
        contentLength(item.summary) +
        length(item.arguments) +
        length(item.input);
    }
    return characters;
  },
  gemini(body) {
    if (!isObject(body) || !Array.isArray(body.candidates)) return 0;
    let characters = 0;
    for (const candidate of body.candidates) {
      const content = isObject(candidate) ? candidate.content : undefined;
      if (!isObject(content) || !Array.isArray(content.parts)) continue;
      for (const part of content.parts) {
        if (!isObject(part)) continue;
        characters += length(part.text);
        if (isObject(part.functionCall))
          characters += JSON.stringify(part.functionCall.args ?? {}).length;
      }
    }
    return characters;
  },
  'bedrock-converse'(body) {
    const output = isObject(body) && isObject(body.output) ? body.output : {};
    const message = isObject(output.message) ? output.message : {};
    if (!Array.isArray(message.content)) return 0;
    let characters = 0;
    for (const block of message.content) {
      if (!isObject(block)) continue;
      characters += length(block.text);
      const reasoning = isObject(block.reasoningContent) ? block.reasoningContent : {};
      if (isObject(reasoning.reasoningText)) characters += length(reasoning.reasoningText.text);
      if (isObject(block.toolUse)) characters += JSON.stringify(block.toolUse.input ?? {}).length;
    }
    return characters;
  },
};

/** A string, or the text and refusal of an array of content parts. */
function contentLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let characters = 0;
  for (const part of content) {
    if (isObject(part)) characters += length(part.text) + length(part.refusal);
  }
  return characters;
}
