import type { UpstreamEvent } from '../providers/provider-codec.ts';
import type { DeltaSlot } from './relayed-delta-slot.ts';

/**
 * The delta events of a relayed stream, checked without parsing each one (docs/decisions/0095).
 *
 * Most events of an answer are deltas that differ from the one before only in their piece of
 * text: `{"id":"chatcmpl-1",…,"delta":{"content":"Hello"},…}`. Once one has been parsed, its text
 * before and after that string (the shape) is known. A later event that starts and ends with
 * exactly that text, and whose middle is a valid JSON string body, is valid JSON of the same
 * structure with only that string changed: the parser's state where the string opens is the
 * same as in the parsed event (same text before it), the string runs to the shape's closing
 * quote (its body holds no unescaped quote), and the same text after it closes the same
 * containers. So the event needs no parse to be known valid, to count its text, or to be
 * renamed: its frame is the shape's frame around its middle.
 *
 * The shape is learnt only from an event the upstream wrote in JSON.stringify's compact form;
 * other spellings (spaces, a member that changes with every event) are parsed as before.
 */
export class RelayedDeltaShape {
  readonly #slotOf: (data: unknown) => DeltaSlot | undefined;
  readonly #rename: (json: string) => string;
  #name: string | undefined;
  #prefix = '';
  #suffix = '';
  #framePrefix = '';
  #frameSuffix = '';
  #baseCharacters = 0;
  #learnt = false;
  /** The parsed data of the event the shape was learnt from (the usage tap reads it). */
  data: unknown;
  /** Characters of answer in the last matched event. */
  characters = 0;

  /**
   * `slotOf`: where a parsed event's text sits, when it is a delta (relayed-delta-slot.ts).
   * `rename`: puts the catalog model id into a JSON text, for events that name the model.
   */
  constructor(slotOf: (data: unknown) => DeltaSlot | undefined, rename: (json: string) => string) {
    this.#slotOf = slotOf;
    this.#rename = rename;
  }

  /**
   * The client frame of `event` when it has the learnt shape (setting `characters`), else
   * undefined: the caller parses it.
   */
  frame(event: UpstreamEvent): string | undefined {
    if (!this.#learnt || event.event !== this.#name) return undefined;
    const { data } = event;
    const prefix = this.#prefix;
    const suffix = this.#suffix;
    const end = data.length - suffix.length;
    // Compared as slices: V8's startsWith and endsWith walk an event sliced from its read
    // character by character, at about the cost of parsing it.
    if (
      end < prefix.length ||
      data.slice(0, prefix.length) !== prefix ||
      data.slice(end) !== suffix
    )
      return undefined;
    const body = data.slice(prefix.length, end);
    const length = decodedStringLength(body);
    if (length < 0) return undefined;
    this.characters = this.#baseCharacters + length;
    return this.#framePrefix + body + this.#frameSuffix;
  }

  /**
   * Learns the shape of a parsed event when it is a delta written in compact form.
   * `characters`: what the event counts in all (count-relayed-text.ts).
   */
  learn(event: UpstreamEvent, data: unknown, characters: number, carriesModel: boolean): void {
    const slot = this.#slotOf(data);
    if (slot === undefined) return;
    const text = slot.holder[slot.key] as string;
    slot.holder[slot.key] = marker;
    let shaped: string;
    try {
      shaped = JSON.stringify(data);
    } finally {
      slot.holder[slot.key] = text;
    }
    const split = splitAtMarker(shaped);
    if (split === undefined) return;
    const [prefix, suffix] = split;
    const { data: raw } = event;
    const end = raw.length - suffix.length;
    if (end < prefix.length || raw.slice(0, prefix.length) !== prefix || raw.slice(end) !== suffix)
      return;
    const renamed = carriesModel ? splitAtMarker(this.#rename(shaped)) : split;
    if (renamed === undefined) return;
    this.#name = event.event;
    this.#prefix = prefix;
    this.#suffix = suffix;
    // The shape's text holds no line break (compact JSON, and a string body cannot hold one
    // unescaped), so the frame is one `data:` line around the body (serialize-sse.ts).
    this.#framePrefix =
      event.event === undefined
        ? `data: ${renamed[0]}`
        : `event: ${event.event}\ndata: ${renamed[0]}`;
    this.#frameSuffix = `${renamed[1]}\n\n`;
    this.#baseCharacters = characters - text.length;
    this.data = data;
    this.#learnt = true;
  }
}

/** Stands in for the delta's text while the shape is written out. */
const marker = '\u0000switchyard-delta\u0000';
const encodedMarker = JSON.stringify(marker);

/** The text before the marker's string body and after it, when it occurs exactly once. */
function splitAtMarker(json: string): [string, string] | undefined {
  const at = json.indexOf(encodedMarker);
  if (at === -1 || json.indexOf(encodedMarker, at + 1) !== -1) return undefined;
  return [json.slice(0, at + 1), json.slice(at + encodedMarker.length - 1)];
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
