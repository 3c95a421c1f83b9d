import type {
  CanonicalMessage,
  TextPart,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { findCurrentTurnStart } from '../../canonical/find-current-turn-start.ts';

type ConversationMessage = Exclude<CanonicalMessage, { role: 'system' }>;

/** One turn of an upstream conversation: its role and its encoded parts. */
export interface EncodedTurn<Part> {
  role: ConversationMessage['role'];
  parts: Part[];
}

/**
 * A canonical conversation as the upstreams that keep system instructions apart take it
 * (Anthropic, Converse, Gemini): leading system messages go to `system`, one after the
 * conversation started is an issue naming `upstream`; consecutive messages of one role are
 * merged, since these upstreams want the roles to alternate (and chat clients send tool results
 * one message each). `encode` gives a message's parts, told whether the message is before the
 * current turn (where signed reasoning is replayed); a message with none is left out. `system`
 * sees every part of the leading system messages and keeps those its upstream takes.
 */
export function walkConversation<Part>(
  messages: CanonicalMessage[],
  issues: TranslationIssue[],
  upstream: string,
  handlers: {
    system(part: TextPart): void;
    encode(message: ConversationMessage, path: string, beforeCurrentTurn: boolean): Part[];
  },
): EncodedTurn<Part>[] {
  const turns: EncodedTurn<Part>[] = [];
  const currentTurnStart = findCurrentTurnStart(messages);
  let conversationStarted = false;
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    if (message.role === 'system') {
      if (conversationStarted) {
        issues.push({
          path,
          reason: `${upstream} accepts system instructions only before the conversation`,
        });
      } else {
        for (const part of message.content) handlers.system(part);
      }
      return;
    }
    conversationStarted = true;
    const parts = handlers.encode(message, path, index < currentTurnStart);
    if (parts.length === 0) return;
    const previous = turns.at(-1);
    if (previous?.role === message.role) previous.parts.push(...parts);
    else turns.push({ role: message.role, parts });
  });
  return turns;
}
