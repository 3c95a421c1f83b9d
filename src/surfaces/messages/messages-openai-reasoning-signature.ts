import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';

/**
 * Cross-dialect convention (docs/architecture.md): reasoning from an OpenAI-responses upstream
 * has no field in the message-style dialect, so it rides in a `thinking` block whose signature is
 * this prefix + base64url(JSON {id, encrypted_content, summary}). The client replays the block
 * unchanged and the decoder restores the reasoning item exactly.
 */
export const openaiReasoningSignaturePrefix = 'sy1.openai.';

export interface OpenAIReasoningToken {
  itemId?: string;
  encryptedContent?: string;
  summary: string[];
}

export function encodeOpenAIReasoningSignature(token: OpenAIReasoningToken): string {
  const payload = {
    id: token.itemId,
    encrypted_content: token.encryptedContent,
    summary: token.summary,
  };
  return (
    openaiReasoningSignaturePrefix +
    Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
  );
}

export function isOpenAIReasoningSignature(signature: string): boolean {
  return signature.startsWith(openaiReasoningSignaturePrefix);
}

/** The token inside a `sy1.openai.` signature, or undefined when it was altered. */
export function decodeOpenAIReasoningSignature(
  signature: string,
): OpenAIReasoningToken | undefined {
  const encoded = signature.slice(openaiReasoningSignaturePrefix.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  const parsed = parseJsonText(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const { id, encrypted_content: encryptedContent, summary } = parsed.value;
  if (id !== undefined && typeof id !== 'string') return undefined;
  if (encryptedContent !== undefined && typeof encryptedContent !== 'string') return undefined;
  if (!Array.isArray(summary) || !summary.every((item) => typeof item === 'string')) {
    return undefined;
  }
  return {
    ...(id !== undefined ? { itemId: id } : {}),
    ...(encryptedContent !== undefined ? { encryptedContent } : {}),
    summary: summary as string[],
  };
}
