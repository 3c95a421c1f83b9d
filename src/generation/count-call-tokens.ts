import type { ContentPart, GenerationCall } from '../canonical/generation-call.ts';

/** Tokens of one text under some tokenizer (or an estimate of them). */
export type CountText = (text: string) => number;

/**
 * OpenAI's chat framing (the cookbook's "How to count tokens with tiktoken"): each message costs
 * three tokens beyond its role and content, and the reply is primed with three more.
 */
const tokensPerMessage = 3;
const replyPriming = 3;
/**
 * An image's size is not known without decoding it; OpenAI bills a 512-pixel tile at 170 tokens
 * plus 85 per image, so a typical four-tile picture is 765. An estimate, never exact.
 */
const tokensPerImage = 765;

function countPart(part: ContentPart, countText: CountText): number {
  switch (part.type) {
    case 'text':
      return countText(part.text);
    case 'image':
      return tokensPerImage;
    case 'reasoning':
      // Encrypted or signed reasoning is opaque here; its readable text is what a chat upstream reads.
      return part.text === '' ? 0 : countText(part.text);
    case 'tool-call':
      return countText(part.toolName) + countText(part.input);
    case 'tool-result': {
      // A tool result is a message of its own in the OpenAI dialects.
      const content =
        typeof part.content === 'string'
          ? countText(part.content)
          : part.content.reduce((sum, inner) => sum + countPart(inner, countText), 0);
      return tokensPerMessage + content;
    }
    default: {
      const unknown: never = part;
      return unknown;
    }
  }
}

/**
 * The prompt size of a canonical call as an OpenAI-style model reads it: its messages under the
 * chat framing and its tool definitions as their JSON text. Exact for text messages under the
 * model's own tokenizer; tool definitions (rendered by the upstream in a format of its own) and
 * images are close estimates (decisions/0003).
 */
export function countCallTokens(call: GenerationCall, countText: CountText): number {
  let total = replyPriming;
  for (const message of call.messages) {
    total += tokensPerMessage + countText(message.role);
    for (const part of message.content) total += countPart(part, countText);
  }
  for (const tool of call.tools) {
    total +=
      countText(tool.name) +
      (tool.description === undefined ? 0 : countText(tool.description)) +
      countText(JSON.stringify(tool.inputSchema));
  }
  return total;
}

/** About four characters a token: the estimate where no tokenizer of the model is at hand. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
