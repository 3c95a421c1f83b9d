import { isDeepStrictEqual } from 'node:util';

import { replayableItem } from './expand-responses-input.ts';
import type { ResponsesItem } from './response-store.ts';
import { copyWith } from '../shared/copy-with.ts';

/**
 * The id of the input's last `item_reference`: its response is the one stored turn whose history
 * the input may re-send (docs/decisions/0038), since a client re-sending a conversation names
 * the latest output last.
 */
export function lastReferencedId(input: readonly ResponsesItem[]): string | undefined {
  for (let index = input.length - 1; index >= 0; index -= 1) {
    const item = input[index] as ResponsesItem;
    if (item.type === 'item_reference') {
      return typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
    }
  }
  return undefined;
}

/**
 * An item as it is compared with a stored one: in the form the gateway replays it
 * (decisions/0012: a message without its id; a reasoning item that carries nothing is left
 * out), without `id` and `status`, which only describe the item as its answer produced it, and
 * with a function call's `arguments` as the JSON they encode rather than its spelling. Key
 * order never matters.
 */
function comparable(item: ResponsesItem): ResponsesItem | undefined {
  const replayed = replayableItem(item);
  if (replayed === undefined) return undefined;
  const { id: _id, status: _status, ...rest } = replayed;
  if (rest.type === 'function_call' && typeof rest.arguments === 'string') {
    try {
      return copyWith(rest, { arguments: JSON.parse(rest.arguments) as unknown });
    } catch {
      return rest;
    }
  }
  return rest;
}

/**
 * Where the input's own items begin when it starts with exactly `history` (a stored chain's
 * history, as `historyOf` replays it), compared item by item after `comparable`; undefined when
 * it does not. `input` is the client's input with its references already expanded, so a
 * reference to a stored output item stands for that item. Items that carry nothing (reasoning
 * without content, never part of a replayed history) are passed over inside the prefix.
 */
export function ownItemsStart(
  input: readonly ResponsesItem[],
  history: readonly ResponsesItem[],
): number | undefined {
  let matched = 0;
  for (let index = 0; index < input.length; index += 1) {
    if (matched === history.length) return index;
    const item = comparable(input[index] as ResponsesItem);
    if (item === undefined) continue;
    const stored = comparable(history[matched] as ResponsesItem);
    if (!isDeepStrictEqual(item, stored)) return undefined;
    matched += 1;
  }
  return matched === history.length ? input.length : undefined;
}
