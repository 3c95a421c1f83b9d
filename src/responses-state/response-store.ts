/** A responses-dialect item (input or output) as JSON, kept exactly as it was sent or answered. */
export type ResponsesItem = Record<string, unknown>;

/**
 * One finished turn kept by the gateway so that `previous_response_id` can refer to it
 * (docs/decisions/0012). Items are in the responses dialect, whatever the upstream was.
 * A turn holds only what it added; the conversation before it is the chain of stored responses
 * it links to (docs/decisions/0037).
 */
export interface StoredResponse {
  /** The response id the client saw. */
  id: string;
  /** Only this account's tokens may chain from it. */
  accountId: string;
  /** The public model id the turn asked for. */
  model: string;
  /** Epoch ms when the request was prepared; retention counts from here (docs/api.md). */
  createdAt: number;
  /** Epoch ms after which the response is gone, for lookups at once and for the sweep later. */
  expiresAt: number;
  /** The turn's own `instructions`; kept, never carried into a later turn (OpenAI semantics). */
  instructions: string | null;
  /**
   * The stored response whose history this turn continued, or null when the turn starts a chain
   * (no previous response, or one that is not stored, such as a WebSocket `store: false` turn).
   */
  previousResponseId: string | null;
  /**
   * The input items this turn added after its previous response's history; with no previous
   * response, every item the turn was generated from. Rows of the first layout (migration 0005)
   * hold the whole expanded history and no link, which reads the same way.
   */
  input: ResponsesItem[];
  /** The output items the client received. */
  output: ResponsesItem[];
}

/** Stored responses (docs/decisions/0012); one contract suite runs against every adapter. */
export interface ResponseStore {
  /** Fails when the id is already stored. */
  saveResponse(response: StoredResponse): Promise<void>;
  /**
   * The response when it exists, belongs to `accountId` and has not expired at `now`; undefined
   * otherwise, so another account's id is indistinguishable from an unknown one.
   */
  findResponse(id: string, accountId: string, now: number): Promise<StoredResponse | undefined>;
  /**
   * The response `id` (found as `findResponse` finds it) and the responses it continues, oldest
   * first, following `previousResponseId` through at most `limit` responses. An earlier response
   * is found while a later one of its chain is unexpired, even past its own expiry. When the
   * oldest one returned still names a previous response, the chain is broken there (a link that
   * is gone) or longer than `limit`.
   */
  findResponseChain(
    id: string,
    accountId: string,
    now: number,
    limit: number,
  ): Promise<StoredResponse[] | undefined>;
  /**
   * Output items of this account's unexpired responses by item id (`item_reference`,
   * docs/decisions/0035). An id that is unknown, expired or another account's is absent from the
   * map.
   */
  findOutputItems(
    ids: readonly string[],
    accountId: string,
    now: number,
  ): Promise<Map<string, ResponsesItem>>;
  /**
   * The account's unexpired response that output item `itemId` belongs to (the latest one when
   * the id was met again), by one indexed read of the item index; undefined when the id is
   * unknown, expired or another account's. It names the response a turn re-sending its history
   * as item references may continue (docs/decisions/0038).
   */
  findResponseOfItem(itemId: string, accountId: string, now: number): Promise<string | undefined>;
  /**
   * Deletes the responses of at most `limit` chains whose every response expired before `now`
   * (a chain lives as long as its latest response); returns how many responses it deleted.
   */
  deleteExpiredResponses(now: number, limit: number): Promise<number>;
}
