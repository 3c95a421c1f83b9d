import { randomBytes } from 'node:crypto';

/**
 * Gemini may answer a function call without an `id`; every dialect a client speaks needs one to
 * pair the call with its result. The minted id is stable for one answer (its `responseId` and
 * the call's position), so a stream and a retried decode give the same ids, and it only uses the
 * characters every dialect accepts in a tool call id. Gemini pairs results with calls by name
 * and order, so the id is never sent back to it (encode-gemini-contents.ts).
 */
export function createGeminiToolCallIds(): (responseId: unknown, upstreamId: unknown) => string {
  let position = 0;
  let fallback: string | undefined;
  return (responseId, upstreamId) => {
    const index = position;
    position += 1;
    if (typeof upstreamId === 'string' && upstreamId !== '') return upstreamId;
    const base =
      typeof responseId === 'string' && responseId !== ''
        ? responseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 32)
        : (fallback ??= randomBytes(9).toString('base64url'));
    return `call_${base}_${index}`;
  };
}
