import type { CanonicalMessage } from './generation-call.ts';

/**
 * The index of the first message of the turn in progress: the one after the last user message
 * that says something new (text or an image, not only tool results). Assistant messages before it
 * belong to finished turns, whose reasoning Anthropic and OpenAI reasoning models leave out of the
 * context anyway (Anthropic "Extended thinking: thinking blocks from previous turns are removed";
 * OpenAI "Reasoning models: reasoning items are discarded after each turn"); reasoning inside the
 * turn in progress (a tool loop) is what the model continues from.
 */
export function findCurrentTurnStart(messages: readonly CanonicalMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user' && message.content.some((part) => part.type !== 'tool-result')) {
      return index + 1;
    }
  }
  return 0;
}
