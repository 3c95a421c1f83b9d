import { describe, expect, it } from 'vitest';
import { ApiError } from '../canonical/generation-error.ts';
import { expandItemReferences } from './expand-item-references.ts';
import type { ResponsesItem } from './response-store.ts';

const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' };
const message = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'Hi.', annotations: [] }],
};
const stored = new Map<string, ResponsesItem>([
  ['rs_1', reasoning],
  ['msg_1', message],
  ['rs_empty', { type: 'reasoning', id: 'rs_empty', summary: [] }],
]);
const lookups: string[][] = [];
const find = async (ids: readonly string[]) => {
  lookups.push([...ids]);
  return new Map([...stored].filter(([id]) => ids.includes(id)));
};

describe('expandItemReferences', () => {
  it('replaces each reference with the stored item, as a replayed history item', async () => {
    lookups.length = 0;
    const user = { role: 'user', content: 'Hello' };
    const expanded = await expandItemReferences(
      [
        user,
        { type: 'item_reference', id: 'rs_1' },
        { type: 'item_reference', id: 'msg_1' },
        { type: 'item_reference', id: 'rs_empty' },
        { role: 'user', content: 'And then?' },
      ],
      find,
    );
    // A message's id names the stored item only; reasoning without content carries nothing.
    const { id: _id, ...messageWithoutId } = message;
    expect(expanded).toEqual([
      user,
      reasoning,
      messageWithoutId,
      { role: 'user', content: 'And then?' },
    ]);
    expect(lookups).toEqual([['rs_1', 'msg_1', 'rs_empty']]);
  });

  it('returns the same array without a lookup when nothing is referenced', async () => {
    lookups.length = 0;
    const input = [{ role: 'user', content: 'Hello' }];
    expect(await expandItemReferences(input, find)).toBe(input);
    expect(lookups).toEqual([]);
  });

  it('refuses a reference the account cannot see, naming its path', async () => {
    const failure = await expandItemReferences(
      [
        { role: 'user', content: 'Hi' },
        { type: 'item_reference', id: 'rs_foreign' },
      ],
      find,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 400,
      details: { param: 'input[1].id', issues: [{ path: 'input[1].id' }] },
    });
    expect((failure as Error).message).toContain("'rs_foreign'");
  });
});
