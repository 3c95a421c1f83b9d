import type { Kysely, Selectable } from 'kysely';

import type {
  ResponseStore,
  ResponsesItem,
  StoredResponse,
} from '../../responses-state/response-store.ts';
import type { Database } from './kysely-database.ts';

/** The table of migration 0002, kept beside its only user. */
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
};

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
    }>();
  }

  /** The response and the index of its output items in one transaction: both or neither. */
  async saveResponse(response: StoredResponse): Promise<void> {
    const ids = itemIds(response.output);
    await this.#database.transaction().execute(async (transaction) => {
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
        })
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

  /** Bounded batches keep each delete's lock short; the sweep repeats until a batch is small. */
  async deleteExpiredResponses(now: number, limit: number): Promise<number> {
    const expired = await this.#database
      .selectFrom('responses')
      .select('id')
      .where('expires_at', '<=', now)
      .limit(limit)
      .execute();
    if (expired.length === 0) return 0;
    const ids = expired.map((row) => row.id);
    // An item row expires with its response; the expiry index finds them without a scan.
    await this.#database
      .deleteFrom('response_items')
      .where('expires_at', '<=', now)
      .where('response_id', 'in', ids)
      .execute();
    const result = await this.#database
      .deleteFrom('responses')
      .where('id', 'in', ids)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function decodeResponse(row: Selectable<ResponsesTable>): StoredResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    model: row.model,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    instructions: row.instructions,
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
