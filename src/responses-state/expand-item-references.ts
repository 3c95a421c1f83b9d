import { ApiError } from '../canonical/generation-error.ts';
import { replayableItem } from './expand-responses-input.ts';
import type { ResponsesItem } from './response-store.ts';

/** Looks output items of the account's stored responses up by id; absent ids are not found. */
export type FindOutputItems = (ids: readonly string[]) => Promise<Map<string, ResponsesItem>>;

function referencedId(item: ResponsesItem): string | undefined {
  return item.type === 'item_reference' && typeof item.id === 'string' ? item.id : undefined;
}

export function hasItemReferences(input: unknown): boolean {
  return (
    Array.isArray(input) &&
    input.some(
      (item: unknown) =>
        typeof item === 'object' &&
        item !== null &&
        (item as ResponsesItem).type === 'item_reference',
    )
  );
}

/**
 * The client's input with each `item_reference` replaced by the item it names
 * (docs/decisions/0035). `@ai-sdk/openai` with its default `store` sends references to earlier
 * output (`rs_…`, `msg_…`) instead of the items. The gateway never lets an upstream keep state (it
 * sends `store: false`, docs/decisions/0012), so it resolves them itself, on every route, from its
 * own stored responses. A reference the account cannot see (unknown, expired, another
 * account's) is a 400 naming `input[i].id`, never forwarded: no upstream holds it either.
 */
export async function expandItemReferences(
  input: ResponsesItem[],
  findOutputItems: FindOutputItems,
): Promise<ResponsesItem[]> {
  const ids = input.map(referencedId).filter((id) => id !== undefined);
  if (ids.length === 0 && !input.some((item) => item.type === 'item_reference')) return input;
  const found = ids.length > 0 ? await findOutputItems(ids) : new Map<string, ResponsesItem>();
  const expanded: ResponsesItem[] = [];
  input.forEach((item, index) => {
    if (item.type !== 'item_reference') {
      expanded.push(item);
      return;
    }
    const id = referencedId(item);
    const target = id === undefined ? undefined : found.get(id);
    if (target === undefined) throw itemNotFound(id, `input[${index}].id`);
    // Left out like a replayed history item that carries nothing (expand-responses-input.ts).
    const replayed = replayableItem(target);
    if (replayed !== undefined) expanded.push(replayed);
  });
  return expanded;
}

function itemNotFound(id: string | undefined, path: string): ApiError {
  const reason =
    id === undefined
      ? 'An item reference needs a string id.'
      : `Item with id '${id}' not found. It may have expired or was created with store: false; send the item itself instead.`;
  return new ApiError('invalid_request', `${reason} (${path})`, {
    details: { param: path, issues: [{ path, reason }] },
  });
}
