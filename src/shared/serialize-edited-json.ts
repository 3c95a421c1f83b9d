/**
 * JSON text for `next`, a copy-on-write edit of `original`, which was parsed from `text`: every
 * value of `next` that is still the very object (or primitive) `original` held at the same place
 * is copied from `text` as it came, and only the containers on the way to an edit are written
 * anew. The same-dialect fast path changes a few members of a body that can run to hundreds of
 * kilobytes (the model id, one cache marker); re-serialising all of it was the largest single
 * cost of an 80 KB request in the benchmark (docs/performance.md), while finding the members'
 * spans is a scan that jumps from quote to quote.
 *
 * The output parses to the same value as `JSON.stringify(next)` would give; unchanged parts keep
 * the client's own spelling (escapes, number forms, whitespace), as a relay would.
 */
export function serializeEditedJson(text: string, original: unknown, next: unknown): string {
  const start = skipWhitespace(text, 0);
  const out: string[] = [];
  write(out, text, original, start, skipValue(text, start), next);
  return out.join('');
}

const enum Char {
  Quote = 34,
  Comma = 44,
  Colon = 58,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  OpenBrace = 123,
  CloseBrace = 125,
}

function write(
  out: string[],
  text: string,
  original: unknown,
  start: number,
  end: number,
  next: unknown,
): void {
  if (Object.is(next, original)) {
    out.push(text.slice(start, end));
    return;
  }
  if (hasToJson(next)) {
    out.push(JSON.stringify(next) ?? 'null');
    return;
  }
  if (isPlainObject(next) && isPlainObject(original) && text.charCodeAt(start) === Char.OpenBrace) {
    writeObject(out, text, original, start, next);
    return;
  }
  if (
    Array.isArray(next) &&
    Array.isArray(original) &&
    text.charCodeAt(start) === Char.OpenBracket
  ) {
    writeArray(out, text, original, start, next);
    return;
  }
  out.push(JSON.stringify(next) ?? 'null');
}

function writeObject(
  out: string[],
  text: string,
  original: Record<string, unknown>,
  start: number,
  next: Record<string, unknown>,
): void {
  const spans = objectMemberSpans(text, start);
  out.push('{');
  let first = true;
  for (const key of Object.keys(next)) {
    const value = next[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    const span = spans.get(key);
    if (span !== undefined && Object.hasOwn(original, key)) {
      write(out, text, original[key], span.start, span.end, value);
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  out.push('}');
}

function writeArray(
  out: string[],
  text: string,
  original: unknown[],
  start: number,
  next: unknown[],
): void {
  const spans = arrayElementSpans(text, start);
  out.push('[');
  for (let index = 0; index < next.length; index++) {
    if (index > 0) out.push(',');
    const span = spans[index];
    if (span !== undefined && index < original.length) {
      write(out, text, original[index], span.start, span.end, next[index]);
    } else {
      out.push(JSON.stringify(next[index]) ?? 'null');
    }
  }
  out.push(']');
}

interface Span {
  start: number;
  end: number;
}

/** The value span of each member of the object at `start`; a repeated key keeps its last, as JSON.parse does. */
function objectMemberSpans(text: string, start: number): Map<string, Span> {
  const spans = new Map<string, Span>();
  let index = skipWhitespace(text, start + 1);
  if (text.charCodeAt(index) === Char.CloseBrace) return spans;
  for (;;) {
    const keyEnd = skipString(text, index);
    const key = JSON.parse(text.slice(index, keyEnd)) as string;
    index = skipWhitespace(text, keyEnd);
    // The colon.
    index = skipWhitespace(text, index + 1);
    const valueEnd = skipValue(text, index);
    spans.set(key, { start: index, end: valueEnd });
    index = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(index) !== Char.Comma) return spans;
    index = skipWhitespace(text, index + 1);
  }
}

function arrayElementSpans(text: string, start: number): Span[] {
  const spans: Span[] = [];
  let index = skipWhitespace(text, start + 1);
  if (text.charCodeAt(index) === Char.CloseBracket) return spans;
  for (;;) {
    const end = skipValue(text, index);
    spans.push({ start: index, end });
    index = skipWhitespace(text, end);
    if (text.charCodeAt(index) !== Char.Comma) return spans;
    index = skipWhitespace(text, index + 1);
  }
}

/** The index just past the string whose opening quote is at `start`. */
function skipString(text: string, start: number): number {
  let index = start;
  for (;;) {
    const quote = text.indexOf('"', index + 1);
    if (quote === -1) throw new SyntaxError('serializeEditedJson: unterminated string');
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === Char.Backslash) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote;
  }
}

/** The index just past the value at `start` (the text is known to be valid JSON). */
function skipValue(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === Char.Quote) return skipString(text, start);
  if (first === Char.OpenBrace || first === Char.OpenBracket) {
    let depth = 0;
    let index = start;
    for (;;) {
      if (index >= text.length) throw new SyntaxError('serializeEditedJson: unbalanced text');
      const char = text.charCodeAt(index);
      if (char === Char.Quote) {
        index = skipString(text, index);
        continue;
      }
      if (char === Char.OpenBrace || char === Char.OpenBracket) depth++;
      else if (char === Char.CloseBrace || char === Char.CloseBracket) {
        depth--;
        if (depth === 0) return index + 1;
      }
      index++;
    }
  }
  // A number, true, false or null: up to the next delimiter.
  let index = start;
  for (;;) {
    const char = text.charCodeAt(index);
    if (
      Number.isNaN(char) ||
      char === Char.Comma ||
      char === Char.CloseBrace ||
      char === Char.CloseBracket ||
      isWhitespace(char)
    ) {
      return index;
    }
    index++;
  }
}

function isWhitespace(char: number): boolean {
  return char === 32 || char === 10 || char === 13 || char === 9;
}

function skipWhitespace(text: string, start: number): number {
  let index = start;
  while (isWhitespace(text.charCodeAt(index))) index++;
  return index;
}

function hasToJson(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
