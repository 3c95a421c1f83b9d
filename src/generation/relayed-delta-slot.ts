/**
 * Where a relayed event carries its piece of answer text: the one string that differs from one
 * delta event of a stream to the next (relayed-delta-shape.ts). Only events whose every other
 * member stays the same from delta to delta have a slot; each dialect names its own.
 */

type Json = Record<string, unknown>;

export interface DeltaSlot {
  holder: Json;
  key: string;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringSlot(holder: unknown, keys: readonly string[]): DeltaSlot | undefined {
  if (!isObject(holder)) return undefined;
  for (const key of keys) if (typeof holder[key] === 'string') return { holder, key };
  return undefined;
}

const chatDeltaKeys = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;

/**
 * Chat: a chunk with one choice and no finish reason, whose delta holds text, reasoning or a
 * refusal, or one tool call's argument text.
 */
export function chatDeltaSlot(data: unknown): DeltaSlot | undefined {
  if (!isObject(data) || !Array.isArray(data.choices) || data.choices.length !== 1) return;
  const [choice] = data.choices as unknown[];
  if (!isObject(choice) || typeof choice.finish_reason === 'string' || !isObject(choice.delta))
    return undefined;
  const { delta } = choice;
  const calls = delta.tool_calls;
  if (Array.isArray(calls)) {
    const [call] = calls as unknown[];
    return calls.length === 1 && isObject(call)
      ? stringSlot(call.function, ['arguments'])
      : undefined;
  }
  return stringSlot(delta, chatDeltaKeys);
}

const anthropicDeltaKeys = ['text', 'thinking', 'partial_json'] as const;

/** Anthropic: a `content_block_delta` with text, thinking or tool input JSON. */
export function anthropicDeltaSlot(data: unknown): DeltaSlot | undefined {
  if (!isObject(data) || data.type !== 'content_block_delta') return undefined;
  return stringSlot(data.delta, anthropicDeltaKeys);
}
