import type BetterSqlite3 from 'better-sqlite3';

import type {
  ResponseStore,
  ResponsesItem,
  StoredResponse,
} from '../../responses-state/response-store.ts';
import type { SqliteBillingWrites } from './sqlite-billing-writes.ts';

interface RootRow {
  id: string;
  root_id: string | null;
}

/** The distinct string ids of the items, in order. */
function itemIds(items: ResponsesItem[]): string[] {
  const ids = items.map((item) => item.id).filter((id) => typeof id === 'string' && id !== '');
  return [...new Set(ids as string[])];
}

/**
 * Stored responses of the gateway process that owns the SQLite file: a finished turn's row, its
 * chain's lifetime and its item index join the group commit of the request path
 * (sqlite-billing-writes.ts) instead of costing a WAL commit of their own. The statements are
 * those of KyselyResponseStore.saveResponse, run synchronously inside the batch; reads commit
 * what is queued first and then read through the durable store.
 */
export class SqliteOwnedResponses implements ResponseStore {
  readonly #writes: SqliteBillingWrites;
  readonly #durable: ResponseStore;
  readonly #selectRoot: BetterSqlite3.Statement<[string, string], RootRow>;
  readonly #insertResponse: BetterSqlite3.Statement;
  readonly #extendChain: BetterSqlite3.Statement;
  readonly #indexItem: BetterSqlite3.Statement;

  constructor(
    connection: BetterSqlite3.Database,
    writes: SqliteBillingWrites,
    durable: ResponseStore,
  ) {
    this.#writes = writes;
    this.#durable = durable;
    this.#selectRoot = connection.prepare<[string, string], RootRow>(
      'select id, root_id from responses where id = ? and account_id = ?',
    );
    this.#insertResponse = connection.prepare(
      `insert into responses (id, account_id, model, created_at, expires_at, instructions, input,
         output, previous_response_id, root_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // A chain lives until its latest response expires (docs/decisions/0037).
    this.#extendChain = connection.prepare(
      `insert into response_chains (root_id, account_id, expires_at) values (?, ?, ?)
       on conflict (root_id) do update set expires_at = max(expires_at, excluded.expires_at)`,
    );
    // An id met again (a replayed upstream item) now names its latest response.
    this.#indexItem = connection.prepare(
      `insert into response_items (account_id, item_id, response_id, expires_at) values (?, ?, ?, ?)
       on conflict (account_id, item_id) do update
       set response_id = excluded.response_id, expires_at = excluded.expires_at`,
    );
  }

  saveResponse(response: StoredResponse): Promise<void> {
    // Serialised now, so the queued write does not depend on objects the caller may change.
    const input = JSON.stringify(response.input);
    const output = JSON.stringify(response.output);
    const ids = itemIds(response.output);
    return this.#writes.join(() => {
      const rootId = this.#rootOf(response);
      this.#insertResponse.run(
        response.id,
        response.accountId,
        response.model,
        response.createdAt,
        response.expiresAt,
        response.instructions,
        input,
        output,
        response.previousResponseId,
        rootId,
      );
      this.#extendChain.run(rootId, response.accountId, response.expiresAt);
      for (const id of ids) {
        this.#indexItem.run(response.accountId, id, response.id, response.expiresAt);
      }
    });
  }

  findResponse(id: string, accountId: string, now: number): Promise<StoredResponse | undefined> {
    this.#writes.flush();
    return this.#durable.findResponse(id, accountId, now);
  }

  findResponseChain(
    id: string,
    accountId: string,
    now: number,
    limit: number,
  ): Promise<StoredResponse[] | undefined> {
    this.#writes.flush();
    return this.#durable.findResponseChain(id, accountId, now, limit);
  }

  findOutputItems(
    ids: readonly string[],
    accountId: string,
    now: number,
  ): Promise<Map<string, ResponsesItem>> {
    this.#writes.flush();
    return this.#durable.findOutputItems(ids, accountId, now);
  }

  findResponseOfItem(itemId: string, accountId: string, now: number): Promise<string | undefined> {
    this.#writes.flush();
    return this.#durable.findResponseOfItem(itemId, accountId, now);
  }

  deleteExpiredResponses(now: number, limit: number): Promise<number> {
    this.#writes.flush();
    return this.#durable.deleteExpiredResponses(now, limit);
  }

  /** The chain a response joins: its previous response's, or its own when it starts one. */
  #rootOf(response: StoredResponse): string {
    if (response.previousResponseId === null) return response.id;
    const previous = this.#selectRoot.get(response.previousResponseId, response.accountId);
    // A previous response that is gone leaves a broken link, which a read reports.
    return previous === undefined ? response.id : (previous.root_id ?? previous.id);
  }
}
