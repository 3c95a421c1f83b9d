import type { UpstreamEvent } from '../providers/provider-codec.ts';
import {
  DeltaShape,
  joinAtMarker,
  splitAtMarker,
  type DeltaSlot,
} from '../providers/shared/delta-shape.ts';

/**
 * The same-dialect relay's view of a delta shape (providers/shared/delta-shape.ts,
 * docs/decisions/0095): a delta of the learnt shape needs no parse to be known valid, to count
 * its text, or to be renamed; its client frame is the shape's frame around its string body.
 */
export class RelayedDeltaShape {
  readonly #shape: DeltaShape;
  readonly #rename: (json: string) => string;
  #usable = false;
  #name: string | undefined;
  #framePrefix = '';
  #frameSuffix = '';
  #baseCharacters = 0;
  /** The parsed data of the event the shape was learnt from (the usage tap reads it). */
  data: unknown;
  /** Characters of answer in the last matched event. */
  characters = 0;

  /**
   * `slotOf`: where a parsed event's text sits, when it is a delta. `rename`: puts the catalog
   * model id into a JSON text, for events that name the model.
   */
  constructor(slotOf: (data: unknown) => DeltaSlot | undefined, rename: (json: string) => string) {
    this.#shape = new DeltaShape(slotOf);
    this.#rename = rename;
  }

  /**
   * The client frame of `event` when it has the learnt shape (setting `characters`), else
   * undefined: the caller parses it.
   */
  frame(event: UpstreamEvent): string | undefined {
    if (!this.#usable || event.event !== this.#name) return undefined;
    const body = this.#shape.body(event.data);
    if (body === undefined) return undefined;
    this.characters = this.#baseCharacters + this.#shape.bodyLength;
    return this.#framePrefix + body + this.#frameSuffix;
  }

  /**
   * Learns the shape of a parsed event when it is a delta written in compact form.
   * `characters`: what the event counts in all (count-relayed-text.ts).
   */
  learn(event: UpstreamEvent, data: unknown, characters: number, carriesModel: boolean): void {
    if (!this.#shape.learn(event.data, data)) return;
    const { prefix, suffix } = this.#shape;
    const renamed = carriesModel
      ? splitAtMarker(this.#rename(joinAtMarker(prefix, suffix)))
      : [prefix, suffix];
    // A catalog model id that holds the marker itself: this shape is left to the parser.
    this.#usable = renamed !== undefined;
    if (renamed === undefined) return;
    this.#name = event.event;
    // The shape's text holds no line break (compact JSON, and a string body cannot hold one
    // unescaped), so the frame is one `data:` line around the body (serialize-sse.ts).
    this.#framePrefix =
      event.event === undefined
        ? `data: ${renamed[0]}`
        : `event: ${event.event}\ndata: ${renamed[0]}`;
    this.#frameSuffix = `${renamed[1]}\n\n`;
    this.#baseCharacters = characters - this.#shape.bodyLength;
    this.data = data;
  }
}
