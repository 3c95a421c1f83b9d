import { describe, expect, it } from 'vitest';

import type { StoredResponse } from '../../src/responses-state/response-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestAccount, uniqueId } from './store-contract-fixtures.ts';
import { useContractStore } from './use-contract-store.ts';

export function describeResponseStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`ResponseStore contract (${name})`, () => {
    const store = useContractStore(openStore);

    function storedResponse(
      accountId: string,
      overrides: Partial<StoredResponse> = {},
    ): StoredResponse {
      return {
        id: uniqueId('resp'),
        accountId,
        model: 'contract-model',
        createdAt: 1_700_000_000_000,
        expiresAt: 1_700_086_400_000,
        instructions: 'Answer briefly.',
        previousResponseId: null,
        input: [
          { role: 'user', content: 'Hello' },
          {
            type: 'function_call_output',
            call_id: 'call_1',
            output: [{ type: 'input_text', text: 'ü\u2028\u0000 "quoted"' }],
          },
        ],
        output: [
          {
            id: 'msg_1',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hi.', annotations: [] }],
          },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        ],
        ...overrides,
      };
    }

    it('finds a saved response with every field, items in their exact key order', async () => {
      const account = await createTestAccount(store());
      // Key order differs from alphabetical: a replay must send the item back as it was.
      const saved = storedResponse(account.id, {
        instructions: null,
        output: [{ type: 'function_call', name: 'z', call_id: 'c', arguments: '{"b":1,"a":2}' }],
      });
      await store().responses.saveResponse(saved);

      const found = await store().responses.findResponse(saved.id, account.id, saved.createdAt);
      expect(found).toEqual(saved);
      expect(JSON.stringify(found?.output)).toBe(JSON.stringify(saved.output));
      expect(JSON.stringify(found?.input)).toBe(JSON.stringify(saved.input));
    });

    it('treats another account’s response exactly like an unknown id', async () => {
      const owner = await createTestAccount(store());
      const other = await createTestAccount(store());
      const saved = storedResponse(owner.id);
      await store().responses.saveResponse(saved);

      expect(await store().responses.findResponse(saved.id, other.id, 0)).toBeUndefined();
      expect(await store().responses.findResponse(uniqueId('resp'), other.id, 0)).toBeUndefined();
      expect(await store().responses.findResponse(saved.id, owner.id, 0)).toEqual(saved);
    });

    it('no longer finds a response once it expired', async () => {
      const account = await createTestAccount(store());
      const saved = storedResponse(account.id, { expiresAt: 5_000 });
      await store().responses.saveResponse(saved);

      expect(await store().responses.findResponse(saved.id, account.id, 4_999)).toEqual(saved);
      expect(await store().responses.findResponse(saved.id, account.id, 5_000)).toBeUndefined();
    });

    it('refuses a second response with the same id and keeps the first', async () => {
      const account = await createTestAccount(store());
      const saved = storedResponse(account.id);
      await store().responses.saveResponse(saved);
      await expect(
        store().responses.saveResponse({ ...saved, output: [], model: 'impostor' }),
      ).rejects.toThrow();
      expect(await store().responses.findResponse(saved.id, account.id, 0)).toEqual(saved);
    });

    it('deletes expired responses in bounded batches and keeps the others', async () => {
      const account = await createTestAccount(store());
      // Clock values below every other test's expiry, so only these rows are in play.
      const expired = [1, 2, 3].map((index) =>
        storedResponse(account.id, { createdAt: 0, expiresAt: 100 + index }),
      );
      const kept = storedResponse(account.id, { createdAt: 0, expiresAt: 1_000 });
      for (const response of [...expired, kept]) await store().responses.saveResponse(response);

      expect(await store().responses.deleteExpiredResponses(200, 2)).toBe(2);
      expect(await store().responses.deleteExpiredResponses(200, 2)).toBe(1);
      expect(await store().responses.deleteExpiredResponses(200, 2)).toBe(0);
      for (const response of expired) {
        expect(await store().responses.findResponse(response.id, account.id, 0)).toBeUndefined();
      }
      expect(await store().responses.findResponse(kept.id, account.id, 0)).toEqual(kept);
    });

    it('finds output items by id, for their account only and until they expire', async () => {
      const owner = await createTestAccount(store());
      const other = await createTestAccount(store());
      const itemId = uniqueId('rs');
      const item = { type: 'reasoning', id: itemId, summary: [], encrypted_content: 'e' };
      const saved = storedResponse(owner.id, {
        expiresAt: 9_000,
        output: [{ type: 'message', id: uniqueId('msg'), role: 'assistant', content: [] }, item],
      });
      await store().responses.saveResponse(saved);

      const unknown = uniqueId('rs');
      const found = await store().responses.findOutputItems([itemId, unknown], owner.id, 8_999);
      expect([...found.entries()]).toEqual([[itemId, item]]);
      expect(JSON.stringify(found.get(itemId))).toBe(JSON.stringify(item));
      expect((await store().responses.findOutputItems([itemId], other.id, 0)).size).toBe(0);
      expect((await store().responses.findOutputItems([itemId], owner.id, 9_000)).size).toBe(0);
    });

    it('finds an item saved again in its latest response', async () => {
      const account = await createTestAccount(store());
      const itemId = uniqueId('msg');
      const first = storedResponse(account.id, {
        output: [{ type: 'message', id: itemId, content: 'first' }],
      });
      const second = storedResponse(account.id, {
        output: [{ type: 'message', id: itemId, content: 'second' }],
      });
      await store().responses.saveResponse(first);
      await store().responses.saveResponse(second);
      const found = await store().responses.findOutputItems([itemId], account.id, 0);
      expect(found.get(itemId)).toEqual({ type: 'message', id: itemId, content: 'second' });
    });

    it('names the response an output item belongs to, for its account only and until it expires', async () => {
      const owner = await createTestAccount(store());
      const other = await createTestAccount(store());
      const itemId = uniqueId('msg');
      const first = storedResponse(owner.id, {
        expiresAt: 9_000,
        output: [{ type: 'message', id: itemId, content: 'first' }],
      });
      await store().responses.saveResponse(first);
      expect(await store().responses.findResponseOfItem(itemId, owner.id, 8_999)).toBe(first.id);
      expect(await store().responses.findResponseOfItem(itemId, owner.id, 9_000)).toBeUndefined();
      expect(await store().responses.findResponseOfItem(itemId, other.id, 0)).toBeUndefined();
      expect(
        await store().responses.findResponseOfItem(uniqueId('msg'), owner.id, 0),
      ).toBeUndefined();

      const again = storedResponse(owner.id, {
        output: [{ type: 'message', id: itemId, content: 'again' }],
      });
      await store().responses.saveResponse(again);
      expect(await store().responses.findResponseOfItem(itemId, owner.id, 0)).toBe(again.id);
    });

    /** Turns of one conversation: each holds only its own items and names the one before. */
    function chainOf(accountId: string, length: number, expiresAt: (index: number) => number) {
      const turns: StoredResponse[] = [];
      for (let index = 0; index < length; index += 1) {
        turns.push(
          storedResponse(accountId, {
            previousResponseId: turns.at(-1)?.id ?? null,
            createdAt: 0,
            expiresAt: expiresAt(index),
            input: [{ role: 'user', content: `question ${index}` }],
            output: [{ type: 'message', id: uniqueId('msg'), content: `answer ${index}` }],
          }),
        );
      }
      return turns;
    }

    it('walks a chain back to its first response, oldest first, every row as saved', async () => {
      const account = await createTestAccount(store());
      const turns = chainOf(account.id, 4, () => 9_000);
      for (const turn of turns) await store().responses.saveResponse(turn);

      const last = turns[3] as StoredResponse;
      expect(await store().responses.findResponseChain(last.id, account.id, 0, 10)).toEqual(turns);
      expect(await store().responses.findResponse(last.id, account.id, 0)).toEqual(last);
      // A fork from the second turn shares the first two.
      const fork = storedResponse(account.id, { previousResponseId: turns[1]?.id ?? null });
      await store().responses.saveResponse(fork);
      expect(await store().responses.findResponseChain(fork.id, account.id, 0, 10)).toEqual([
        turns[0],
        turns[1],
        fork,
      ]);
    });

    it('returns at most limit responses, the oldest still naming the one before', async () => {
      const account = await createTestAccount(store());
      const turns = chainOf(account.id, 5, () => 9_000);
      for (const turn of turns) await store().responses.saveResponse(turn);
      const chain = await store().responses.findResponseChain(
        (turns[4] as StoredResponse).id,
        account.id,
        0,
        2,
      );
      expect(chain).toEqual(turns.slice(3));
      expect(chain?.[0]?.previousResponseId).toBe(turns[2]?.id);
    });

    it('ends the walk where a link is gone or leads to another account', async () => {
      const owner = await createTestAccount(store());
      const other = await createTestAccount(store());
      const gone = storedResponse(owner.id, { previousResponseId: uniqueId('resp') });
      await store().responses.saveResponse(gone);
      expect(await store().responses.findResponseChain(gone.id, owner.id, 0, 10)).toEqual([gone]);

      const foreignRoot = storedResponse(other.id);
      await store().responses.saveResponse(foreignRoot);
      const crossing = storedResponse(owner.id, { previousResponseId: foreignRoot.id });
      await store().responses.saveResponse(crossing);
      expect(await store().responses.findResponseChain(crossing.id, owner.id, 0, 10)).toEqual([
        crossing,
      ]);
      // The named response itself follows findResponse: unknown, foreign and expired look alike.
      expect(await store().responses.findResponseChain(crossing.id, other.id, 0, 10)).toBe(
        undefined,
      );
      expect(
        await store().responses.findResponseChain(crossing.id, owner.id, crossing.expiresAt, 10),
      ).toBeUndefined();
    });

    it('keeps earlier responses while a later one of their chain lives, then sweeps the chain', async () => {
      const account = await createTestAccount(store());
      // Expiries below every other test's clock values, so only these rows are in play.
      const turns = chainOf(account.id, 3, (index) => 300 + index * 10);
      for (const turn of turns) await store().responses.saveResponse(turn);
      const [first, , last] = turns as [StoredResponse, StoredResponse, StoredResponse];

      // Past the first turn's own expiry it cannot be named, but its chain still reads.
      expect(await store().responses.findResponse(first.id, account.id, 305)).toBeUndefined();
      expect(await store().responses.findResponseChain(last.id, account.id, 305, 10)).toEqual(
        turns,
      );
      expect(await store().responses.deleteExpiredResponses(315, 10)).toBe(0);
      expect(await store().responses.findResponseChain(last.id, account.id, 315, 10)).toEqual(
        turns,
      );

      // Once the latest turn expired, the whole chain goes in one batch, with its item index.
      expect(await store().responses.deleteExpiredResponses(320, 10)).toBe(3);
      expect(await store().responses.findResponseChain(last.id, account.id, 0, 10)).toBeUndefined();
      const outputIds = turns.map((turn) => String(turn.output[0]?.id));
      expect((await store().responses.findOutputItems(outputIds, account.id, 0)).size).toBe(0);
    });

    it('refuses a response of an account that does not exist', async () => {
      await expect(
        store().responses.saveResponse(storedResponse(uniqueId('account'))),
      ).rejects.toThrow();
    });
  });
}
