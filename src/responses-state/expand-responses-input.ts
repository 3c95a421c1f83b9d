import type { ResponsesItem } from './response-store.ts';

/** A turn as a later turn continues from it: what it was generated from and what it answered. */
export interface ResponsesTurn {
  input: ResponsesItem[];
  output: ResponsesItem[];
}

/** The request's `input` as items; a string is one user message, as the dialect reads it. */
export function inputItemsOf(input: unknown): ResponsesItem[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? (input as ResponsesItem[]) : [];
}

/**
 * An output item as it can go back as input (docs/decisions/0012). Towards an OpenAI upstream
 * the gateway always sends `store: false`, so nothing may refer to items kept at the upstream:
 * a message's `id` is dropped (it only names the past item), and a reasoning item that has
 * neither encrypted content nor any text is only such a reference and is left out. Everything
 * else goes back exactly as the client received it.
 */
export function replayableItem(item: ResponsesItem): ResponsesItem | undefined {
  if (item.type === 'message') {
    const { id: _id, ...message } = item;
    return message;
  }
  if (item.type === 'reasoning' && !carriesReasoning(item)) return undefined;
  return item;
}

function carriesReasoning(item: ResponsesItem): boolean {
  if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '') return true;
  const hasText = (entries: unknown) =>
    Array.isArray(entries) &&
    entries.some(
      (entry: { text?: unknown }) => typeof entry.text === 'string' && entry.text !== '',
    );
  return hasText(item.summary) || hasText(item.content);
}

/** The items a turn that names `turn` as its previous response starts with. */
export function historyOf(turn: ResponsesTurn): ResponsesItem[] {
  const history = [...turn.input];
  for (const item of turn.output) {
    const replayed = replayableItem(item);
    if (replayed !== undefined) history.push(replayed);
  }
  return history;
}
