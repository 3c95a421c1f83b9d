/**
 * The shape of an upstream's delta events, so that most of a stream needs no JSON parse
 * (docs/decisions/0095).
 *
 * Most events of an answer are deltas that differ from the one before only in their piece of
 * text: `{"id":"chatcmpl-1",…,"delta":{"content":"Hello"},…}`. Once one has been parsed, its text
 * before and after that string (the shape) is known. A later event that starts and ends with
 * exactly that text, and whose middle is a valid JSON string body, is valid JSON of the same
 * structure with only that string changed: the parser's state where the string opens is the
 * same as in the parsed event (same text before it), the string runs to the shape's closing
 * quote (its body holds no unescaped quote), and the same text after it closes the same
 * containers.
 *
 * A shape is learnt only from an event the upstream wrote in JSON.stringify's compact form;
 * other spellings (spaces, a member that changes with every event) are parsed as before.
 */

import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

type Json = Record<string, unknown>;

/** Where a parsed delta event carries its text: `holder[key]`, a string. */
export interface DeltaSlot {
  holder: Json;
  key: string;
}

/** The first of `keys` that holds a string in `holder`, as a slot. */
export function stringSlot(holder: unknown, keys: readonly string[]): DeltaSlot | undefined {
  if (!isJsonObject(holder)) return undefined;
  for (const key of keys) if (typeof holder[key] === 'string') return { holder, key };
  return undefined;
}

export class DeltaShape {
  readonly #slotOf: (data: unknown) => DeltaSlot | undefined;
  #prefix = '';
  #suffix = '';
  #slot: DeltaSlot | undefined;
  #value: unknown;
  /** Shapes learnt in a row that no event matched: a stream whose deltas all differ. */
  #fruitless = 0;
  /** The length of the delta's text in the last event matched (`body`) or learnt. */
  bodyLength = 0;

  /** `slotOf`: where a parsed event's text sits, when it is a delta of this dialect. */
  constructor(slotOf: (data: unknown) => DeltaSlot | undefined) {
    this.#slotOf = slotOf;
  }

  /** Whether a shape has been learnt. */
  get learnt(): boolean {
    return this.#slot !== undefined;
  }

  /** The shape's text before the delta's string body (through its opening quote). */
  get prefix(): string {
    return this.#prefix;
  }

  /** The shape's text after the delta's string body (from its closing quote). */
  get suffix(): string {
    return this.#suffix;
  }

  /**
   * Learns the shape of `text`, parsed as `value`, when it is a delta written in compact form;
   * returns whether it did. Otherwise the shape learnt before stays.
   */
  learn(text: string, value: unknown): boolean {
    // Learning costs a stringify; a stream whose deltas never repeat a shape stops paying it.
    if (this.#fruitless >= maxFruitless) return false;
    const slot = this.#slotOf(value);
    if (slot === undefined) return false;
    const delta = slot.holder[slot.key] as string;
    // An empty delta opens a stream (a chat stream's first chunk carries the role with it) and
    // rarely has the shape of the deltas after it: learning it would cost a stringify for nothing.
    if (delta === '') return false;
    slot.holder[slot.key] = marker;
    let shaped: string;
    try {
      shaped = JSON.stringify(value);
    } finally {
      slot.holder[slot.key] = delta;
    }
    const split = splitAtMarker(shaped);
    if (split === undefined || bodyOf(text, split[0], split[1]) === undefined) return false;
    [this.#prefix, this.#suffix] = split;
    this.#slot = slot;
    this.#value = value;
    this.#fruitless += 1;
    this.bodyLength = delta.length;
    return true;
  }

  /** The delta's string body as written in `text` (escapes and all) when `text` has the shape. */
  body(text: string): string | undefined {
    if (this.#slot === undefined) return undefined;
    const body = bodyOf(text, this.#prefix, this.#suffix);
    const length = body === undefined ? -1 : decodedStringLength(body);
    if (length < 0) return undefined;
    this.#fruitless = 0;
    this.bodyLength = length;
    return body;
  }

  /**
   * `text` parsed, when it has the shape: the value the shape was learnt from with its delta
   * replaced. The same object each time, so a caller reads it at once and keeps none of it.
   */
  read(text: string): unknown {
    const body = this.body(text);
    if (body === undefined || this.#slot === undefined) return undefined;
    // A valid body decodes to fewer characters exactly when it holds an escape; valid, so the
    // parse of the quoted body cannot throw.
    this.#slot.holder[this.#slot.key] =
      this.bodyLength === body.length ? body : (JSON.parse(`"${body}"`) as string);
    return this.#value;
  }
}

const maxFruitless = 4;

/** Stands in for the delta's text while the shape is written out. */
const marker = '\u0000switchyard-delta\u0000';
const encodedMarker = JSON.stringify(marker);

/** The text before the marker's string body and after it, when it occurs exactly once. */
export function splitAtMarker(json: string): [string, string] | undefined {
  const at = json.indexOf(encodedMarker);
  if (at === -1 || json.indexOf(encodedMarker, at + 1) !== -1) return undefined;
  return [json.slice(0, at + 1), json.slice(at + encodedMarker.length - 1)];
}

/** A shape's text around the marker's body, for a caller that edits the shape (a rename). */
export function joinAtMarker(prefix: string, suffix: string): string {
  return `${prefix}${encodedMarker.slice(1, -1)}${suffix}`;
}

/** What lies between `prefix` and `suffix` when `text` starts and ends with them. */
function bodyOf(text: string, prefix: string, suffix: string): string | undefined {
  const end = text.length - suffix.length;
  // Compared as slices: V8's startsWith and endsWith walk an event sliced from its read
  // character by character, at about the cost of parsing it.
  if (end < prefix.length || text.slice(0, prefix.length) !== prefix || text.slice(end) !== suffix)
    return undefined;
  return text.slice(prefix.length, end);
}

/** Characters that end or escape a JSON string body, or may not appear in it raw. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON forbids raw
const special = /["\\\u0000-\u001f]/;
// eslint-disable-next-line no-control-regex -- as above
const validBody = /^(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*$/;

/**
 * The length of the string a JSON string body decodes to, or -1 when it is not a valid body
 * (an unescaped quote or control character, or a bad escape).
 */
export function decodedStringLength(body: string): number {
  if (!special.test(body)) return body.length;
  if (!validBody.test(body)) return -1;
  let length = body.length;
  for (let at = body.indexOf('\\'); at !== -1; at = body.indexOf('\\', at)) {
    const escape = body.charCodeAt(at + 1) === 0x75 /* u */ ? 6 : 2;
    length -= escape - 1;
    at += escape;
  }
  return length;
}
