import { parseUntrustedJson } from './parse-json.ts';
import { encodeEditedJson } from './serialize-edited-json.ts';
import { utf8Bytes } from './utf8-bytes.ts';

/**
 * The text a request body was parsed from, on the body itself: a symbol-keyed, non-enumerable
 * property, so JSON.stringify, spreads, Object.keys and schema validation never see it. Not a
 * WeakMap: with one entry per request, V8's handling of WeakMap entries in young-generation
 * collections cost the 80 KB body scenario about a third more GC time (docs/performance.md).
 */
const SOURCE_TEXT = Symbol('switchyard.sourceText');

interface WithSource {
  [SOURCE_TEXT]?: string | undefined;
}

/**
 * Parses a request body (as parseUntrustedJson) and keeps its text with it, so that an edit of
 * the body can be written out reusing that text (encodeEdit).
 */
export function parseRequestJson(text: string): unknown {
  const value = parseUntrustedJson(text);
  if (typeof value === 'object' && value !== null) {
    Object.defineProperty(value, SOURCE_TEXT, { value: text, writable: true });
  }
  return value;
}

/**
 * The UTF-8 JSON for `next`, a copy-on-write edit of `original`: when `original` is a request
 * body parsed by parseRequestJson and still holds its text, the unchanged parts are copied from
 * the client's text (serialize-edited-json.ts); otherwise plain JSON.stringify.
 */
export function encodeEdit(next: unknown, original: unknown): Buffer {
  const text = sourceText(original);
  return text === undefined
    ? utf8Bytes(JSON.stringify(next))
    : encodeEditedJson(text, original, next);
}

/**
 * Lets the body's text go once no further edit of it will be written (the last upstream attempt
 * is sent, or one succeeded): a held text lives on through every young-generation collection of
 * the request, and an 80 KB text per request in flight was a large part of what they copied.
 * The body stays valid; a later encodeEdit of it falls back to JSON.stringify.
 */
export function releaseSource(original: unknown): void {
  if (sourceText(original) !== undefined) (original as WithSource)[SOURCE_TEXT] = undefined;
}

function sourceText(original: unknown): string | undefined {
  return typeof original === 'object' && original !== null
    ? (original as WithSource)[SOURCE_TEXT]
    : undefined;
}
