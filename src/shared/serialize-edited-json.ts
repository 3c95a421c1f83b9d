import { utf8Bytes, writeUtf8 } from './utf8-bytes.ts';

/**
 * UTF-8 JSON for `next`, a copy-on-write edit of `original`, which was parsed from `text`: every
 * value of `next` that is still the very object (or primitive) `original` held at the same place
 * is copied from `text` as it came, and only the containers on the way to an edit are written
 * anew. The same-dialect fast path changes a few members of a body that can run to hundreds of
 * kilobytes (the model id, one cache marker); re-serialising all of it was the largest single
 * cost of an 80 KB request in the benchmark (docs/performance.md), while finding the members'
 * spans is a scan that jumps from quote to quote. The pieces are written straight into the
 * output buffer: the edited text is never joined into one string and then encoded again.
 *
 * The output parses to the same value as `JSON.stringify(next)` would give; unchanged parts keep
 * the client's own spelling (escapes, number forms, whitespace), as a relay would.
 */
export function encodeEditedJson(text: string, original: unknown, next: unknown): Buffer {
  const pieces = editPieces(text, original, next);
  // A small body is cheaper joined and encoded once than written piece by piece: each piece
  // costs a length scan and a write call of its own, which outweighs copying a few kilobytes.
  if (text.length <= joinBelowCharacters) {
    let joined = '';
    for (const piece of pieces) {
      joined += typeof piece === 'string' ? piece : text.slice(piece.start, piece.end);
    }
    return utf8Bytes(joined);
  }
  const strings: string[] = [];
  const lengths: number[] = [];
  let total = 0;
  for (const piece of pieces) {
    const string = typeof piece === 'string' ? piece : text.slice(piece.start, piece.end);
    const length = Buffer.byteLength(string);
    strings.push(string);
    lengths.push(length);
    total += length;
  }
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  for (let index = 0; index < strings.length; index++) {
    offset = writeUtf8(out, strings[index] as string, lengths[index] as number, offset);
  }
  return out;
}

const joinBelowCharacters = 8_192;

/** A part of the output: written text, or a span of the source text copied as it is. */
type Piece = string | Span;

interface Span {
  start: number;
  end: number;
}

/** A member or element of a source container: where it starts (its key, if any) and its value. */
interface Member extends Span {
  /** Where the member starts: its key's opening quote, or the element's first character. */
  from: number;
  /** Its position among the container's members in the source. */
  index: number;
}

type Pieces = Piece[];

/** Adds a copied span, joined to the one before when they meet in the source. */
function copy(out: Pieces, start: number, end: number): void {
  const last = out[out.length - 1];
  if (last !== undefined && typeof last !== 'string' && last.end === start) last.end = end;
  else out.push({ start, end });
}

function editPieces(text: string, original: unknown, next: unknown): Pieces {
  const start = skipWhitespace(text, 0);
  // The text is one JSON value: it ends where the trailing whitespace starts, no scan needed.
  let end = text.length;
  while (end > start && isWhitespace(text.charCodeAt(end - 1))) end--;
  const out: Pieces = [];
  write(out, text, original, start, end, next);
  return out;
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
  out: Pieces,
  text: string,
  original: unknown,
  start: number,
  end: number,
  next: unknown,
): void {
  if (Object.is(next, original)) {
    copy(out, start, end);
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
  out: Pieces,
  text: string,
  original: Record<string, unknown>,
  start: number,
  next: Record<string, unknown>,
): void {
  const members = objectMembers(text, start);
  out.push('{');
  let first = true;
  // The source member written last, when it was copied whole: the next one in the source can
  // then be copied together with the separator between them.
  let copied: Member | undefined;
  for (const key of Object.keys(next)) {
    const value = next[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const member = Object.hasOwn(original, key) ? members.get(key) : undefined;
    if (member !== undefined && Object.is(value, original[key])) {
      if (copied?.index === member.index - 1) copy(out, copied.end, member.end);
      else {
        if (!first) out.push(',');
        copy(out, member.from, member.end);
      }
      copied = member;
      first = false;
      continue;
    }
    if (!first) out.push(',');
    first = false;
    copied = undefined;
    out.push(`${JSON.stringify(key)}:`);
    if (member === undefined) out.push(JSON.stringify(value) ?? 'null');
    else write(out, text, original[key], member.start, member.end, value);
  }
  out.push('}');
}

function writeArray(
  out: Pieces,
  text: string,
  original: unknown[],
  start: number,
  next: unknown[],
): void {
  const elements = arrayElements(text, start);
  out.push('[');
  let copied = false;
  for (let index = 0; index < next.length; index++) {
    const element = index < original.length ? elements[index] : undefined;
    const value = next[index];
    if (element !== undefined && Object.is(value, original[index])) {
      // The element before it was copied too: copy the separator with it.
      if (copied) copy(out, (elements[index - 1] as Member).end, element.end);
      else {
        if (index > 0) out.push(',');
        copy(out, element.start, element.end);
      }
      copied = true;
      continue;
    }
    if (index > 0) out.push(',');
    copied = false;
    if (element === undefined) out.push(JSON.stringify(value) ?? 'null');
    else write(out, text, original[index], element.start, element.end, value);
  }
  out.push(']');
}

/** The members of the object at `start`; a repeated key keeps its last, as JSON.parse does. */
function objectMembers(text: string, start: number): Map<string, Member> {
  const members = new Map<string, Member>();
  let index = skipWhitespace(text, start + 1);
  if (text.charCodeAt(index) === Char.CloseBrace) return members;
  for (let position = 0; ; position++) {
    const keyEnd = skipString(text, index);
    const key = readKey(text, index, keyEnd);
    const from = index;
    index = skipWhitespace(text, keyEnd);
    // The colon.
    index = skipWhitespace(text, index + 1);
    const valueEnd = skipValue(text, index);
    members.set(key, { from, start: index, end: valueEnd, index: position });
    index = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(index) !== Char.Comma) return members;
    index = skipWhitespace(text, index + 1);
  }
}

function arrayElements(text: string, start: number): Member[] {
  const elements: Member[] = [];
  let index = skipWhitespace(text, start + 1);
  if (text.charCodeAt(index) === Char.CloseBracket) return elements;
  for (let position = 0; ; position++) {
    const end = skipValue(text, index);
    elements.push({ from: index, start: index, end, index: position });
    index = skipWhitespace(text, end);
    if (text.charCodeAt(index) !== Char.Comma) return elements;
    index = skipWhitespace(text, index + 1);
  }
}

/** The key whose quoted text spans `start` to `end`; JSON.parse only when it holds an escape. */
function readKey(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/** The index just past the string whose opening quote is at `start`. */
function skipString(text: string, start: number): number {
  let index = start;
  for (;;) {
    const quote = text.indexOf('"', index + 1);
    if (quote === -1) throw new SyntaxError('encodeEditedJson: unterminated string');
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
      if (index >= text.length) throw new SyntaxError('encodeEditedJson: unbalanced text');
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
