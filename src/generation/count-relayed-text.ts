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
