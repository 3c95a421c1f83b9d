/** A responses-dialect item (input or output) as JSON, kept exactly as it was sent or answered. */
export type ResponsesItem = Record<string, unknown>;

/**
 * One finished turn kept by the gateway so that `previous_response_id` can refer to it (spec
 * §2.4, docs/decisions/0012). Items are in the responses dialect, whatever the upstream was.
 */
export interface StoredResponse {
  /** The response id the client saw. */
  id: string;
  /** Only this account's tokens may chain from it. */
  accountId: string;
  /** The public model id the turn asked for. */
  model: string;
  /** Epoch ms when the request was prepared; retention counts from here (spec §4.12). */
  createdAt: number;
  /** Epoch ms after which the response is gone, for lookups at once and for the sweep later. */
  expiresAt: number;
  /** The turn's own `instructions`; kept, never carried into a later turn (OpenAI semantics). */
  instructions: string | null;
  /** Every input item the turn was generated from: the expanded history, then its new input. */
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
   * Output items of this account's unexpired responses by item id (`item_reference`, issue 14
   * §3). An id that is unknown, expired or another account's is absent from the map.
   */
  findOutputItems(
    ids: readonly string[],
    accountId: string,
    now: number,
  ): Promise<Map<string, ResponsesItem>>;
  /** Deletes at most `limit` responses that expired before `now`; returns how many it deleted. */
  deleteExpiredResponses(now: number, limit: number): Promise<number>;
}
