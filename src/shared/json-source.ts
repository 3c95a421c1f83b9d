import { parseUntrustedJson } from './parse-json.ts';
import { serializeEditedJson } from './serialize-edited-json.ts';

/** The text each request body was parsed from, while the parsed body lives. */
const sources = new WeakMap<object, string>();

/**
 * Parses a request body (as parseUntrustedJson) and remembers its text, so that an edit of the
 * body can be written out reusing that text (stringifyEdit).
 */
export function parseRequestJson(text: string): unknown {
  const value = parseUntrustedJson(text);
  if (typeof value === 'object' && value !== null) sources.set(value, text);
  return value;
}

/**
 * JSON text for `next`, a copy-on-write edit of `original`: when `original` is a request body
 * parsed by parseRequestJson, its unchanged parts are copied from the client's text
 * (serialize-edited-json.ts); otherwise plain JSON.stringify.
 */
export function stringifyEdit(next: unknown, original: unknown): string {
  const text =
    typeof original === 'object' && original !== null ? sources.get(original) : undefined;
  return text === undefined ? JSON.stringify(next) : serializeEditedJson(text, original, next);
}
