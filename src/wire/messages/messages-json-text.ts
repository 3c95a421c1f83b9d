/**
 * The one place where JSON texts of the message-style dialect (SSE event data, tool arguments,
 * opaque signatures) are parsed (no bare JSON.parse on untrusted input elsewhere).
 */
export type JsonTextResult = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJsonText(text: string): JsonTextResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'invalid JSON' };
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
