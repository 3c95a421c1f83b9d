import type { ResponsesTurn } from './expand-responses-input.ts';
import type { ResponsesItem } from './response-store.ts';

/** A finished turn of the connection; a stored one also knows the length of its stored chain. */
export interface ConnectionTurn extends ResponsesTurn {
  /** Set when the turn was stored: how many stored responses its chain holds, itself included. */
  storedChainLength?: number;
}

/**
 * The finished turns of one WebSocket connection, so that a turn sending only its new items and
 * `previous_response_id` works even with `store: false` (docs/clients.md, Codex over WebSocket). It
 * lives and dies with the connection. Clients continue from their latest response, so only the
 * most recent few are kept; turns share their item objects, so each costs little more than its
 * own new items.
 */
export class ResponsesConnectionHistory {
  readonly #turns = new Map<string, ConnectionTurn>();
  readonly #limit: number;

  constructor(limit = 16) {
    this.#limit = limit;
  }

  /** The id of the turn remembered last, the connection's latest finished response. */
  latest(): string | undefined {
    let last: string | undefined;
    for (const id of this.#turns.keys()) last = id;
    return last;
  }

  get(responseId: string): ConnectionTurn | undefined {
    return this.#turns.get(responseId);
  }

  /** An output item of one of the kept turns, by its id (`item_reference`), newest turn first. */
  findOutputItem(itemId: string): ResponsesItem | undefined {
    for (const turn of [...this.#turns.values()].reverse()) {
      const item = turn.output.find((entry) => entry.id === itemId);
      if (item !== undefined) return item;
    }
    return undefined;
  }

  remember(responseId: string, turn: ConnectionTurn): void {
    this.#turns.delete(responseId);
    this.#turns.set(responseId, turn);
    while (this.#turns.size > this.#limit) {
      const oldest = this.#turns.keys().next();
      if (oldest.done === true) break;
      this.#turns.delete(oldest.value);
    }
  }
}
