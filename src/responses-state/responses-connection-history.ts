import type { ResponsesTurn } from './expand-responses-input.ts';

/**
 * The finished turns of one WebSocket connection, so that a turn sending only its new items and
 * `previous_response_id` works even with `store: false` (CLIENTS.md, Codex over WebSocket). It
 * lives and dies with the connection. Clients continue from their latest response, so only the
 * most recent few are kept; turns share their item objects, so each costs little more than its
 * own new items.
 */
export class ResponsesConnectionHistory {
  readonly #turns = new Map<string, ResponsesTurn>();
  readonly #limit: number;

  constructor(limit = 16) {
    this.#limit = limit;
  }

  get(responseId: string): ResponsesTurn | undefined {
    return this.#turns.get(responseId);
  }

  remember(responseId: string, turn: ResponsesTurn): void {
    this.#turns.delete(responseId);
    this.#turns.set(responseId, turn);
    while (this.#turns.size > this.#limit) {
      const oldest = this.#turns.keys().next();
      if (oldest.done === true) break;
      this.#turns.delete(oldest.value);
    }
  }
}
