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

type ResponsesDatabase = Database & { responses: ResponsesTable };

export class KyselyResponseStore implements ResponseStore {
  readonly #database: Kysely<ResponsesDatabase>;

  constructor(database: Kysely<Database>) {
    this.#database = database.withTables<{ responses: ResponsesTable }>();
  }

  async saveResponse(response: StoredResponse): Promise<void> {
    await this.#database
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
    const result = await this.#database
      .deleteFrom('responses')
      .where('id', 'in', (database) =>
        database.selectFrom('responses').select('id').where('expires_at', '<=', now).limit(limit),
      )
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
