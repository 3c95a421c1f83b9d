import type { ReasoningPart } from '../canonical/generation-call.ts';
import { isJsonObject, parseJsonText } from '../wire/messages/messages-json-text.ts';

/**
 * Gemini's `thoughtSignature` has no field in the message-style or responses dialects, so both
 * surfaces carry it in their own opaque field (a `thinking` block's `signature`, a reasoning
 * item's `encrypted_content`) as `sy1.google.` + base64url(JSON {text, signature})
 * (docs/architecture.md). The token holds the thought text too: whether the text was empty says
 * which Gemini part the signature belongs to (docs/decisions/0153), and a client may show or
 * replay the block without its text.
 */
export const googleReasoningPrefix = 'sy1.google.';

export function encodeGoogleReasoningToken(reasoning: { text: string; signature: string }): string {
  const payload = { text: reasoning.text, signature: reasoning.signature };
  return googleReasoningPrefix + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

export function isGoogleReasoningToken(token: string): boolean {
  return token.startsWith(googleReasoningPrefix);
}

/** The canonical part inside a token, or undefined when the gateway did not mint it as it is. */
export function decodeGoogleReasoningToken(token: string): ReasoningPart | undefined {
  if (!isGoogleReasoningToken(token)) return undefined;
  const encoded = token.slice(googleReasoningPrefix.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  const parsed = parseJsonText(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const { text, signature } = parsed.value;
  if (Object.keys(parsed.value).length !== 2) return undefined;
  if (typeof text !== 'string' || typeof signature !== 'string') return undefined;
  return { type: 'reasoning', text, signature, provider: 'google' };
}
