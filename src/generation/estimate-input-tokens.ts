/**
 * Tokens the provider may add around the request on its own: the tool-use system prompt
 * (Anthropic documents a few hundred tokens) and per-message framing. Text and tool definitions
 * are already bounded by their bytes.
 */
const providerFramingTokens = 1_024;

/** Fields that name media by reference rather than carry them inline. */
const referenceKeys = new Set(['url', 'image_url', 'file_url', 'file_id']);

/**
 * Media the upstream fetches or looks up itself (an image by URL, a file by id): its token count
 * cannot be bounded by the request's size. Inline data (`data:` URLs, base64 sources) is bounded
 * by its bytes like the rest.
 */
function referencesMedia(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (referencesMedia(item)) return true;
    return false;
  }
  // for…in rather than Object.entries: this walks every node of a body (tool schemas included),
  // and an entries array per object cost ten times the walk itself on an 80 KB body.
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string') {
      if (referenceKeys.has(key) && !item.startsWith('data:')) return true;
    } else if (typeof item === 'object' && item !== null && referencesMedia(item)) {
      return true;
    }
  }
  return false;
}

/**
 * An upper bound of the prompt's tokens, to size the credit hold before the upstream reports the
 * truth (docs/decisions/0015: a hold under the real prompt lets a call overrun it). Byte-level BPE
 * tokenisers never make a token of less than one byte, so the body's UTF-8 size bounds its text;
 * the provider's own framing is added, and the context window caps it all. Media referenced by
 * URL or file id can be any size, so a body with such media holds the whole context window.
 */
export function estimateInputTokens(
  body: Record<string, unknown>,
  bodyBytes: number,
  contextWindow: number,
): number {
  if (referencesMedia(body)) return contextWindow;
  return Math.min(contextWindow, bodyBytes + providerFramingTokens);
}
