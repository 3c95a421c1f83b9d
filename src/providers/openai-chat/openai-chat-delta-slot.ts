import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { stringSlot, type DeltaSlot } from '../shared/delta-shape.ts';

const deltaKeys = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;

/**
 * Where a `chat.completion.chunk` carries its piece of answer (shared/delta-shape.ts): a chunk
 * with one choice and no finish reason, whose delta holds text, reasoning or a refusal, or one
 * tool call's argument text.
 */
export function openAIChatDeltaSlot(data: unknown): DeltaSlot | undefined {
  if (!isJsonObject(data) || !Array.isArray(data.choices) || data.choices.length !== 1)
    return undefined;
  const [choice] = data.choices as unknown[];
  if (!isJsonObject(choice) || typeof choice.finish_reason === 'string') return undefined;
  const { delta } = choice;
  if (!isJsonObject(delta)) return undefined;
  const calls = delta.tool_calls;
  if (Array.isArray(calls)) {
    const [call] = calls as unknown[];
    return calls.length === 1 && isJsonObject(call)
      ? stringSlot(call.function, ['arguments'])
      : undefined;
  }
  return stringSlot(delta, deltaKeys);
}
