import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/authenticator.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type {
  GenerationInput,
  GenerationReply,
  PreparedTurn,
} from '../generation/generation-service.ts';
import { responsesSurface } from '../surfaces/responses/responses-surface.ts';
import type { ResponseStore, StoredResponse } from './response-store.ts';
import { ResponsesConnectionHistory } from './responses-connection-history.ts';
import { ResponsesState } from './responses-state.ts';

const day = 86_400_000;
const clock = 1_767_000_000_000;

/** An in-memory store with the port's semantics (the adapters have their own contract suite). */
function memoryStore(): ResponseStore & { rows: Map<string, StoredResponse> } {
  const rows = new Map<string, StoredResponse>();
  return {
    rows,
    async saveResponse(response) {
      if (rows.has(response.id)) throw new Error('duplicate id');
      rows.set(response.id, response);
    },
    async findResponse(id, accountId, now) {
      const row = rows.get(id);
      return row !== undefined && row.accountId === accountId && row.expiresAt > now
        ? row
        : undefined;
    },
    async findResponseChain(id, accountId, now, limit) {
      const last = await this.findResponse(id, accountId, now);
      if (last === undefined) return undefined;
      const chain = [last];
      for (let oldest = last; chain.length < limit && oldest.previousResponseId !== null;) {
        const previous = rows.get(oldest.previousResponseId);
        if (previous === undefined || previous.accountId !== accountId) break;
        chain.unshift(previous);
        oldest = previous;
      }
      return chain;
    },
    async findOutputItems(ids, accountId, now) {
      const found = new Map<string, Record<string, unknown>>();
      for (const row of rows.values()) {
        if (row.accountId !== accountId || row.expiresAt <= now) continue;
        for (const item of row.output) {
          if (typeof item.id === 'string' && ids.includes(item.id)) found.set(item.id, item);
        }
      }
      return found;
    },
    async findResponseOfItem(itemId, accountId, now) {
      let owner: string | undefined;
      for (const row of rows.values()) {
        if (row.accountId !== accountId || row.expiresAt <= now) continue;
        if (row.output.some((item) => item.id === itemId)) owner = row.id;
      }
      return owner;
    },
    async deleteExpiredResponses() {
      return 0;
    },
  };
}

function principal(accountId: string): Principal {
  return {
    account: { id: accountId, name: accountId, isAdmin: false, createdAt: 0 },
    apiKey: {
      id: `key_${accountId}`,
      accountId,
      name: 'test',
      hash: '',
      displayPrefix: 'sy_',
      permissions: ['inference:create'],
      interface: 'credits',
      allowedModels: null,
      budget: null,
      limits: null,
      expiresAt: null,
      disabledAt: null,
      createdAt: 0,
    },
  };
}

function setup(
  options: { storeByDefault?: boolean; failSaves?: boolean; maxChainLength?: number } = {},
) {
  const store = memoryStore();
  const failures: string[] = [];
  if (options.failSaves === true) {
    store.saveResponse = async () => {
      throw new Error('disk full');
    };
  }
  const state = new ResponsesState({
    store,
    retentionMs: 30 * day,
    storeByDefault: options.storeByDefault ?? true,
    now: () => clock,
    onSaveFailure: (_error, id) => failures.push(id),
    ...(options.maxChainLength !== undefined ? { maxChainLength: options.maxChainLength } : {}),
  });
  return { store, state, failures };
}

function turnInput(body: Record<string, unknown>, accountId = 'account_a'): GenerationInput {
  return {
    surface: responsesSurface,
    body: { model: 'public-model', ...body },
    bodyBytes: 100,
    principal: principal(accountId),
    headers: {},
    requestId: 'req_1',
    signal: new AbortController().signal,
  };
}

const answer = (id: string, status = 'completed', text = 'Sunny.') =>
  JSON.stringify({
    id,
    object: 'response',
    status,
    output: [
      {
        id: `msg_${id}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
  });

const json = (body: string): GenerationReply => ({ kind: 'json', headers: {}, body });

async function* streamOf(frames: string[]): AsyncGenerator<string> {
  yield* frames;
}

async function prepared(
  state: ResponsesState,
  body: Record<string, unknown>,
  accountId?: string,
): Promise<PreparedTurn> {
  const turn = await state.turnHook.prepare(turnInput(body, accountId));
  if (turn === undefined) throw new Error('expected the turn to be prepared');
  return turn;
}

describe('ResponsesState over HTTP', () => {
  it('leaves a store:false turn without previous_response_id untouched', async () => {
    const { state } = setup();
    expect(await state.turnHook.prepare(turnInput({ input: 'Hi', store: false }))).toBeUndefined();
  });

  it('keeps a turn with store absent (the dialect default) and tells the upstream to keep nothing', async () => {
    const { state, store } = setup();
    const turn = await prepared(state, { input: 'Weather?', instructions: 'Be brief.' });
    expect(turn.body).toMatchObject({ input: 'Weather?', store: false });
    await turn.observe(json(answer('resp_1')));
    expect(store.rows.get('resp_1')).toEqual({
      id: 'resp_1',
      accountId: 'account_a',
      model: 'public-model',
      createdAt: clock,
      expiresAt: clock + 30 * day,
      instructions: 'Be brief.',
      previousResponseId: null,
      input: [{ role: 'user', content: 'Weather?' }],
      output: JSON.parse(answer('resp_1')).output,
    });
  });

  it('keeps nothing when an absent store means false to the operator', async () => {
    const { state } = setup({ storeByDefault: false });
    expect(await state.turnHook.prepare(turnInput({ input: 'Hi' }))).toBeUndefined();
  });

  it('expands previous_response_id into input and drops it; instructions are not carried', async () => {
    const { state } = setup();
    const first = await prepared(state, { input: 'Weather?', instructions: 'Be brief.' });
    await first.observe(json(answer('resp_1')));

    const second = await prepared(state, {
      input: [{ role: 'user', content: 'And tomorrow?' }],
      previous_response_id: 'resp_1',
      store: true,
    });
    expect(second.body).not.toHaveProperty('previous_response_id');
    expect(second.body).not.toHaveProperty('instructions');
    expect(second.body.input).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
      },
      { role: 'user', content: 'And tomorrow?' },
    ]);
    expect(second.bodyBytes).toBeGreaterThan(100);
  });

  it('answers 400 naming the id for an unknown, expired or foreign previous response', async () => {
    const { state } = setup();
    const owned = await prepared(state, { input: 'Hi' });
    await owned.observe(json(answer('resp_owned')));

    const refusal = async (id: string, accountId: string) => {
      const error = await state.turnHook
        .prepare(turnInput({ input: 'x', previous_response_id: id }, accountId))
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      return error as ApiError;
    };
    const unknown = await refusal('resp_missing', 'account_a');
    expect(unknown.status).toBe(400);
    expect(unknown.type).toBe('invalid_request_error');
    expect(unknown.message).toContain("'resp_missing'");
    expect(unknown.code).toBe('previous_response_not_found');
    expect(unknown.details).toEqual({ param: 'previous_response_id' });
    // Another account's id: the same answer as an unknown one, apart from the id it names.
    const foreign = (await refusal('resp_owned', 'account_b')).toGenerationError();
    expect({ ...foreign, message: foreign.message.replace('resp_owned', 'resp_missing') }).toEqual(
      unknown.toGenerationError(),
    );
  });

  it('keeps nothing of a failed turn', async () => {
    const { state, store } = setup();
    const turn = await prepared(state, { input: 'Hi' });
    await turn.observe(json(answer('resp_failed', 'failed')));
    expect(store.rows.size).toBe(0);
  });

  it('keeps a streamed turn before its terminal event reaches the client', async () => {
    const { state, store } = setup();
    const turn = await prepared(state, { input: 'Hi', stream: true });
    const completed = `event: response.completed\ndata: ${JSON.stringify({
      type: 'response.completed',
      sequence_number: 3,
      response: JSON.parse(answer('resp_streamed')),
    })}\n\n`;
    const reply = await turn.observe({
      kind: 'stream',
      headers: {},
      events: streamOf(['event: response.created\ndata: {}\n\n', completed]),
    });
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const seen: boolean[] = [];
    for await (const frame of reply.events) {
      if (frame === completed) seen.push(store.rows.has('resp_streamed'));
    }
    expect(seen).toEqual([true]);
  });

  it('keeps nothing of a stream the client abandoned before its end', async () => {
    const { state, store } = setup();
    const turn = await prepared(state, { input: 'Hi', stream: true });
    const completed = `event: response.completed\ndata: ${JSON.stringify({
      type: 'response.completed',
      response: JSON.parse(answer('resp_abandoned')),
    })}\n\n`;
    const reply = await turn.observe({
      kind: 'stream',
      headers: {},
      events: streamOf(['event: response.created\ndata: {}\n\n', completed]),
    });
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    await reply.events.next();
    await reply.events.return(undefined);
    expect(store.rows.size).toBe(0);
  });

  it('asks for encrypted reasoning only when a kept turn reasons', async () => {
    const { state } = setup();
    const reasoning = { effort: 'high', summary: 'auto' };
    const kept = await prepared(state, { input: 'Hi', reasoning, include: [] });
    expect(kept.body.include).toEqual(['reasoning.encrypted_content']);
    const plain = await prepared(state, { input: 'Hi' });
    expect(plain.body).not.toHaveProperty('include');
    const { state: stateless } = setup({ storeByDefault: false });
    const previousless = await stateless.turnHook.prepare(
      turnInput({ input: 'Hi', reasoning, store: false }),
    );
    expect(previousless).toBeUndefined();
  });

  it('refuses a conversation, whose state would live at the upstream', async () => {
    const { state } = setup();
    await expect(
      state.turnHook.prepare(turnInput({ input: 'Hi', store: false, conversation: 'conv_1' })),
    ).rejects.toMatchObject({ status: 400, details: { param: 'conversation' } });
  });

  it('still answers when storing fails, and reports the failure', async () => {
    const { state, failures } = setup({ failSaves: true });
    const turn = await prepared(state, { input: 'Hi' });
    const reply = await turn.observe(json(answer('resp_unsaved')));
    expect(reply).toEqual(json(answer('resp_unsaved')));
    expect(failures).toEqual(['resp_unsaved']);
  });
});

describe('ResponsesState chains of stored responses', () => {
  async function converse(state: ResponsesState, questions: string[], previous?: string) {
    const ids: string[] = [];
    for (const question of questions) {
      const last = ids.at(-1) ?? previous;
      const turn = await prepared(state, {
        input: question,
        ...(last !== undefined ? { previous_response_id: last } : {}),
      });
      const id = `resp_${question}`;
      await turn.observe(json(answer(id, 'completed', `re ${question}`)));
      ids.push(id);
    }
    return ids;
  }

  it('keeps only what a turn added, linked to the response it continued', async () => {
    const { state, store } = setup();
    const ids = await converse(state, ['q1', 'q2', 'q3']);
    expect(ids.map((id) => store.rows.get(id)?.previousResponseId)).toEqual([
      null,
      'resp_q1',
      'resp_q2',
    ]);
    expect(ids.map((id) => store.rows.get(id)?.input)).toEqual([
      [{ role: 'user', content: 'q1' }],
      [{ role: 'user', content: 'q2' }],
      [{ role: 'user', content: 'q3' }],
    ]);
    const next = await prepared(state, { input: 'q4', previous_response_id: 'resp_q3' });
    const texts = (next.body.input as Array<Record<string, unknown>>).map((item) =>
      typeof item.content === 'string' ? item.content : JSON.stringify(item.content),
    );
    expect(texts).toEqual([
      'q1',
      expect.stringContaining('re q1'),
      'q2',
      expect.stringContaining('re q2'),
      'q3',
      expect.stringContaining('re q3'),
      'q4',
    ]);
  });

  it('starts a new chain with the whole history once a chain is at its length limit', async () => {
    const { state, store } = setup({ maxChainLength: 2 });
    await converse(state, ['q1', 'q2', 'q3', 'q4']);
    const q3 = store.rows.get('resp_q3');
    expect(q3?.previousResponseId).toBeNull();
    expect(q3?.input).toHaveLength(5);
    expect(store.rows.get('resp_q4')).toMatchObject({
      previousResponseId: 'resp_q3',
      input: [{ role: 'user', content: 'q4' }],
    });
    const next = await prepared(state, { input: 'q5', previous_response_id: 'resp_q4' });
    expect(next.body.input).toHaveLength(9);
  });

  it('answers 400 naming both ids when an earlier response of the chain is gone', async () => {
    const { state, store } = setup();
    await converse(state, ['q1', 'q2', 'q3']);
    store.rows.delete('resp_q2');
    const error = await state.turnHook
      .prepare(turnInput({ input: 'q4', previous_response_id: 'resp_q3' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'previous_response_not_found',
      details: { param: 'previous_response_id' },
    });
    expect((error as ApiError).message).toContain("'resp_q3'");
    expect((error as ApiError).message).toContain("'resp_q2'");
  });

  it('links a kept WebSocket turn to a kept one, and copies the history of an unkept one', async () => {
    const { state, store } = setup();
    const history = new ResponsesConnectionHistory();
    const hook = state.connectionTurnHook(history);
    const run = async (id: string, body: Record<string, unknown>) => {
      const turn = await hook.prepare(turnInput(body));
      await turn?.observe(json(answer(id)));
    };
    await run('resp_kept', { input: 'a', store: true });
    await run('resp_linked', { input: 'b', store: true, previous_response_id: 'resp_kept' });
    await run('resp_unkept', { input: 'c', store: false, previous_response_id: 'resp_linked' });
    await run('resp_copied', { input: 'd', store: true, previous_response_id: 'resp_unkept' });
    expect(store.rows.get('resp_linked')).toMatchObject({
      previousResponseId: 'resp_kept',
      input: [{ role: 'user', content: 'b' }],
    });
    expect(store.rows.has('resp_unkept')).toBe(false);
    // Its previous response is not stored, so the whole history is: a chain of its own.
    expect(store.rows.get('resp_copied')?.previousResponseId).toBeNull();
    expect(store.rows.get('resp_copied')?.input).toHaveLength(7);
  });
});

describe('ResponsesState on a WebSocket connection', () => {
  it('chains store:false turns within the connection, and nowhere else', async () => {
    const { state, store } = setup();
    const history = new ResponsesConnectionHistory();
    const hook = state.connectionTurnHook(history);
    const first = await hook.prepare(turnInput({ input: 'Weather?', store: false }));
    await first?.observe(json(answer('resp_ws1')));
    expect(store.rows.size).toBe(0);

    const second = await hook.prepare(
      turnInput({ input: 'Tomorrow?', store: false, previous_response_id: 'resp_ws1' }),
    );
    expect(second?.body.input).toHaveLength(3);
    await expect(
      state.turnHook.prepare(turnInput({ input: 'x', previous_response_id: 'resp_ws1' })),
    ).rejects.toMatchObject({ code: 'previous_response_not_found' });
  });

  it('answers a prewarm with a completed empty response that the next turn continues', async () => {
    const { state, store } = setup();
    const history = new ResponsesConnectionHistory();
    const events = (await state.prewarm(
      { model: 'public-model', input: [{ role: 'developer', content: 'Rules.' }], store: true },
      principal('account_a'),
      history,
    )) as Array<{ type: string; sequence_number: number; response: Record<string, unknown> }>;
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2]);
    const completed = events[2]?.response ?? {};
    expect(completed).toMatchObject({ status: 'completed', output: [], model: 'public-model' });
    expect(completed.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    // Unmetered, so never written to the database.
    expect(store.rows.size).toBe(0);

    const next = await state
      .connectionTurnHook(history)
      .prepare(turnInput({ input: 'Hi', previous_response_id: completed.id, store: false }));
    expect(next?.body.input).toEqual([
      { role: 'developer', content: 'Rules.' },
      { role: 'user', content: 'Hi' },
    ]);
  });
});

describe('ResponsesState linking an input that re-sends a stored history by references', () => {
  const user = (text: string) => ({ role: 'user', content: [{ type: 'input_text', text }] });
  const ref = (id: string) => ({ type: 'item_reference', id });
  /** A tool-calling answer: reasoning, then a call whose id and status the client never sends. */
  const callAnswer = (id: string) =>
    JSON.stringify({
      id,
      object: 'response',
      status: 'completed',
      output: [
        { id: `rs_${id}`, type: 'reasoning', summary: [], encrypted_content: `sealed ${id}` },
        {
          id: `fc_${id}`,
          type: 'function_call',
          status: 'completed',
          call_id: `call_${id}`,
          name: 'get_weather',
          arguments: '{"city": "Oslo"}',
        },
      ],
    });
  /** The call as the AI SDK re-sends it: no id, no status, arguments spelled its own way. */
  const sentCall = (id: string) => ({
    type: 'function_call',
    call_id: `call_${id}`,
    name: 'get_weather',
    arguments: '{"city":"Oslo"}',
  });
  const callOutput = (id: string) => ({
    type: 'function_call_output',
    call_id: `call_${id}`,
    output: '4C',
  });

  async function turn(
    state: ResponsesState,
    id: string,
    input: unknown[],
    reply = answer(id, 'completed', `re ${id}`),
    accountId?: string,
  ) {
    const prepared_ = await prepared(state, { input }, accountId);
    await prepared_.observe(json(reply));
    return prepared_;
  }

  /** Three turns re-sent the AI SDK's way, the second a tool call whose result the third sends. */
  async function toolConversation(state: ResponsesState) {
    await turn(state, 'resp_1', [user('q1')]);
    await turn(state, 'resp_2', [user('q1'), ref('msg_resp_1'), user('q2')], callAnswer('resp_2'));
    const third = await turn(state, 'resp_3', [
      user('q1'),
      ref('msg_resp_1'),
      user('q2'),
      ref('rs_resp_2'),
      sentCall('resp_2'),
      callOutput('resp_2'),
    ]);
    return third;
  }

  it('links to the response owning the last reference and keeps only the items after its history', async () => {
    const { state, store } = setup();
    const third = await toolConversation(state);

    expect(store.rows.get('resp_2')).toMatchObject({
      previousResponseId: 'resp_1',
      input: [user('q2')],
    });
    expect(store.rows.get('resp_3')).toMatchObject({
      previousResponseId: 'resp_2',
      input: [callOutput('resp_2')],
    });
    // The upstream still got the whole conversation, as the client sent it, references expanded.
    const sent = third.body.input as Array<Record<string, unknown>>;
    expect(sent.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'message',
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    expect(sent[4]).toEqual(sentCall('resp_2'));
    // The chain reads back as that conversation.
    const next = await prepared(state, { input: 'q4', previous_response_id: 'resp_3' });
    const replayed = next.body.input as Array<Record<string, unknown>>;
    expect(replayed.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'message',
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
      'message',
      'user',
    ]);
  });

  it('starts a new chain when the input does not start with the whole stored history', async () => {
    const { state, store } = setup();
    await turn(state, 'resp_1', [user('q1')]);
    await turn(state, 'resp_2', [user('edited q1'), ref('msg_resp_1'), user('q2')]);
    await turn(state, 'resp_3', [ref('msg_resp_1'), user('q2')]);
    for (const id of ['resp_2', 'resp_3']) {
      expect(store.rows.get(id)?.previousResponseId).toBeNull();
    }
    expect(store.rows.get('resp_2')?.input).toHaveLength(3);
    expect(store.rows.get('resp_3')?.input).toHaveLength(2);
  });

  it("refuses a reference to another account's item as if it were unknown", async () => {
    const { state, store } = setup();
    await turn(state, 'resp_1', [user('q1')]);
    const error = await state.turnHook
      .prepare(turnInput({ input: [user('q1'), ref('msg_resp_1'), user('q2')] }, 'account_b'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, details: { param: 'input[1].id' } });
    expect(store.rows.size).toBe(1);
  });

  it('links to an earlier response of a chain when the input re-sends only its history', async () => {
    const { state, store } = setup();
    await toolConversation(state);
    // A regenerated second turn: the history of resp_1, then a different question.
    await turn(state, 'resp_fork', [user('q1'), ref('msg_resp_1'), user('q2 again')]);
    expect(store.rows.get('resp_fork')).toMatchObject({
      previousResponseId: 'resp_1',
      input: [user('q2 again')],
    });
    const next = await prepared(state, { input: 'q3', previous_response_id: 'resp_fork' });
    expect(next.body.input).toEqual([
      user('q1'),
      expect.objectContaining({ type: 'message', role: 'assistant' }),
      user('q2 again'),
      expect.objectContaining({ type: 'message', role: 'assistant' }),
      { role: 'user', content: 'q3' },
    ]);
  });

  it('resolves references into a living chain whose own response expired', async () => {
    const { state, store } = setup();
    await toolConversation(state);
    const first = store.rows.get('resp_1') as StoredResponse;
    store.rows.set('resp_1', { ...first, expiresAt: clock });
    await turn(state, 'resp_4', [
      user('q1'),
      ref('msg_resp_1'),
      user('q2'),
      ref('rs_resp_2'),
      sentCall('resp_2'),
      callOutput('resp_2'),
      ref('msg_resp_3'),
      user('q4'),
    ]);
    expect(store.rows.get('resp_4')).toMatchObject({
      previousResponseId: 'resp_3',
      input: [user('q4')],
    });
  });

  it('starts a new chain past the length limit or when the chain is broken', async () => {
    const { state, store } = setup({ maxChainLength: 2 });
    await toolConversation(state);
    expect(store.rows.get('resp_3')?.previousResponseId).toBeNull();
    expect(store.rows.get('resp_3')?.input).toHaveLength(6);

    const broken = setup();
    await toolConversation(broken.state);
    broken.store.rows.delete('resp_2');
    // Everything but the last answer in full, so only the chain's break is in the way.
    const fullAnswer = (id: string) => {
      const { id: _id, ...message } = JSON.parse(answer(id, 'completed', `re ${id}`)).output[0];
      return message;
    };
    await turn(broken.state, 'resp_4', [
      user('q1'),
      fullAnswer('resp_1'),
      user('q2'),
      { type: 'reasoning', summary: [], encrypted_content: 'sealed resp_2' },
      sentCall('resp_2'),
      callOutput('resp_2'),
      ref('msg_resp_3'),
      user('q4'),
    ]);
    expect(broken.store.rows.get('resp_4')?.previousResponseId).toBeNull();
    expect(broken.store.rows.get('resp_4')?.input).toHaveLength(8);
  });

  it('keeps the rules of a WebSocket connection, where only previous_response_id links', async () => {
    const { state, store } = setup();
    await turn(state, 'resp_1', [user('q1')]);
    const hook = state.connectionTurnHook(new ResponsesConnectionHistory());
    const socketTurn = await hook.prepare(
      turnInput({ input: [user('q1'), ref('msg_resp_1'), user('q2')], store: true }),
    );
    await socketTurn?.observe(json(answer('resp_ws')));
    expect(store.rows.get('resp_ws')?.previousResponseId).toBeNull();
    expect(store.rows.get('resp_ws')?.input).toHaveLength(3);
  });
});
