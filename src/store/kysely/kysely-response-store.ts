import { sql } from 'kysely';
import type { Kysely, Selectable, Transaction } from 'kysely';

import type {
  ResponseStore,
  ResponsesItem,
  StoredResponse,
} from '../../responses-state/response-store.ts';
import type { Database } from './kysely-database.ts';

/** The table of migration 0002 with the links of migration 0010, kept beside its only user. */
export interface ResponsesTable {
  id: string;
  account_id: string;
  model: string;
  created_at: number;
  expires_at: number;
  instructions: string | null;
  /** JSON array of responses-dialect items. */
  input: string;
  /** JSON array of responses-dialect items. */
  output: string;
  /** The response this one continues; null for the first response of a chain. */
  previous_response_id: string | null;
  /** The first response of the chain; null only before migration 0010 filled it. */
  root_id: string | null;
}

/** The table of migration 0010: one row per chain, living as long as its latest response. */
export interface ResponseChainsTable {
  root_id: string;
  account_id: string;
  expires_at: number;
}

/** The table of migration 0005: output items of stored responses by id. */
export interface ResponseItemsTable {
  account_id: string;
  item_id: string;
  response_id: string;
  expires_at: number;
}

type ResponsesDatabase = Database & {
  responses: ResponsesTable;
  response_items: ResponseItemsTable;
  response_chains: ResponseChainsTable;
};

type ChainRow = Selectable<ResponsesTable> & { depth: number };

/** The distinct string ids of the items, in order. */
function itemIds(items: ResponsesItem[]): string[] {
  const ids = items.map((item) => item.id).filter((id) => typeof id === 'string' && id !== '');
  return [...new Set(ids as string[])];
}

export class KyselyResponseStore implements ResponseStore {
  readonly #database: Kysely<ResponsesDatabase>;

  constructor(database: Kysely<Database>) {
    this.#database = database.withTables<{
      responses: ResponsesTable;
      response_items: ResponseItemsTable;
      response_chains: ResponseChainsTable;
    }>();
  }

  /**
   * The response, its chain's lifetime and the index of its output items in one transaction:
   * all or nothing.
   */
  async saveResponse(response: StoredResponse): Promise<void> {
    const ids = itemIds(response.output);
    await this.#database.transaction().execute(async (transaction) => {
      const rootId = await rootOf(transaction, response);
      await transaction
        .insertInto('responses')
        .values({
          id: response.id,
          account_id: response.accountId,
          model: response.model,
          created_at: response.createdAt,
          expires_at: response.expiresAt,
          instructions: response.instructions,
          input: JSON.stringify(response.input),
          output: JSON.stringify(response.output),
          previous_response_id: response.previousResponseId,
          root_id: rootId,
        })
        .execute();
      // A chain lives until its latest response expires (docs/decisions/0037).
      await transaction
        .insertInto('response_chains')
        .values({ root_id: rootId, account_id: response.accountId, expires_at: response.expiresAt })
        .onConflict((conflict) =>
          conflict.column('root_id').doUpdateSet({
            expires_at: sql<number>`case when excluded.expires_at > response_chains.expires_at
              then excluded.expires_at else response_chains.expires_at end`,
          }),
        )
        .execute();
      if (ids.length === 0) return;
      // An id met again (a replayed upstream item) now names its latest response.
      await transaction
        .insertInto('response_items')
        .values(
          ids.map((id) => ({
            account_id: response.accountId,
            item_id: id,
            response_id: response.id,
            expires_at: response.expiresAt,
          })),
        )
        .onConflict((conflict) =>
          conflict.columns(['account_id', 'item_id']).doUpdateSet((update) => ({
            response_id: update.ref('excluded.response_id'),
            expires_at: update.ref('excluded.expires_at'),
          })),
        )
        .execute();
    });
  }

  /** One indexed lookup for the ids, then one primary-key lookup per response they belong to. */
  async findOutputItems(
    ids: readonly string[],
    accountId: string,
    now: number,
  ): Promise<Map<string, ResponsesItem>> {
    const found = new Map<string, ResponsesItem>();
    if (ids.length === 0) return found;
    const rows = await this.#database
      .selectFrom('response_items')
      .select(['item_id', 'response_id'])
      .where('account_id', '=', accountId)
      .where('item_id', 'in', [...new Set(ids)])
      .where('expires_at', '>', now)
      .execute();
    const responseIds = [...new Set(rows.map((row) => row.response_id))];
    for (const responseId of responseIds) {
      const response = await this.findResponse(responseId, accountId, now);
      for (const item of response?.output ?? []) {
        if (typeof item.id !== 'string') continue;
        const row = rows.find((entry) => entry.item_id === item.id);
        if (row?.response_id === responseId) found.set(item.id, item);
      }
    }
    return found;
  }

  /** One read of the item index's primary key. */
  async findResponseOfItem(
    itemId: string,
    accountId: string,
    now: number,
  ): Promise<string | undefined> {
    const row = await this.#database
      .selectFrom('response_items')
      .select('response_id')
      .where('account_id', '=', accountId)
      .where('item_id', '=', itemId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row?.response_id;
  }

  /** One primary-key lookup; the account and expiry conditions make a foreign id look unknown. */
  async findResponse(
    id: string,
    accountId: string,
    now: number,
  ): Promise<StoredResponse | undefined> {
    const row = await this.#database
      .selectFrom('responses')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row === undefined ? undefined : decodeResponse(row);
  }

  /**
   * One recursive query walks the links from the response back to the first of its chain (or
   * `limit` responses), each step a primary-key lookup. Only the named response must be
   * unexpired: the earlier ones live while their chain does. A step to another account's row
   * ends the walk as a missing one would.
   */
  async findResponseChain(
    id: string,
    accountId: string,
    now: number,
    limit: number,
  ): Promise<StoredResponse[] | undefined> {
    const { rows } = await sql<ChainRow>`
      with recursive chain (id, depth) as (
        select id, 1 from responses
        where id = ${id} and account_id = ${accountId} and expires_at > ${now}
        union all
        select responses.previous_response_id, chain.depth + 1
        from chain join responses on responses.id = chain.id and responses.account_id = ${accountId}
        where responses.previous_response_id is not null and chain.depth < ${limit}
      )
      select responses.*, chain.depth from chain
      join responses on responses.id = chain.id and responses.account_id = ${accountId}
      order by chain.depth desc`.execute(this.#database);
    return rows.length === 0 ? undefined : rows.map(decodeResponse);
  }

  /**
   * Bounded batches of whole chains keep each delete's lock short; the sweep repeats until a
   * batch is small. A chain goes when its latest response expired, all of its responses at once.
   */
  async deleteExpiredResponses(now: number, limit: number): Promise<number> {
    return await this.#database.transaction().execute(async (transaction) => {
      const expired = await transaction
        .selectFrom('response_chains')
        .select('root_id')
        .where('expires_at', '<=', now)
        .limit(limit)
        .execute();
      if (expired.length === 0) return 0;
      const roots = expired.map((row) => row.root_id);
      const responseIds = transaction
        .selectFrom('responses')
        .select('id')
        .where('root_id', 'in', roots);
      await transaction
        .deleteFrom('response_items')
        .where('response_id', 'in', responseIds)
        .execute();
      const result = await transaction
        .deleteFrom('responses')
        .where('root_id', 'in', roots)
        .executeTakeFirst();
      await transaction.deleteFrom('response_chains').where('root_id', 'in', roots).execute();
      return Number(result.numDeletedRows);
    });
  }
}

/** The chain a response joins: its previous response's, or its own when it starts one. */
async function rootOf(
  transaction: Transaction<ResponsesDatabase>,
  response: StoredResponse,
): Promise<string> {
  if (response.previousResponseId === null) return response.id;
  const previous = await transaction
    .selectFrom('responses')
    .select(['id', 'root_id'])
    .where('id', '=', response.previousResponseId)
    .where('account_id', '=', response.accountId)
    .executeTakeFirst();
  // A previous response that is gone leaves a broken link, which a read reports.
  return previous === undefined ? response.id : (previous.root_id ?? previous.id);
}

function decodeResponse(row: Selectable<ResponsesTable>): StoredResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    model: row.model,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    instructions: row.instructions,
    previousResponseId: row.previous_response_id,
    input: decodeItems(row.input, row.id, 'input'),
    output: decodeItems(row.output, row.id, 'output'),
  };
}

/** The column was written by saveResponse; anything else means the row was edited by hand. */
function decodeItems(text: string, id: string, column: string): ResponsesItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`responses row ${id} is corrupt: ${column} is not JSON`);
  }
  const isItem = (item: unknown): item is ResponsesItem =>
    typeof item === 'object' && item !== null && !Array.isArray(item);
  if (!Array.isArray(value) || !value.every(isItem)) {
    throw new Error(`responses row ${id} is corrupt: ${column} is not an array of items`);
  }
  return value;
}
