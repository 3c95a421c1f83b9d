import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import {
  modelPerDialect,
  startUpstreamTestBed,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';
import { sweepExpiredResponses } from '../../src/responses-state/sweep-expired-responses.ts';

const day = 86_400_000;

/** One model per upstream dialect: a conversation may move between them turn by turn. */
const models = {
  anthropic: 'state-via-anthropic',
  chat: 'state-via-chat',
  responses: 'state-via-responses',
} as const;

interface ResponseObject {
  id: string;
  status: string;
  output: Array<Record<string, unknown>>;
}

describe('stored responses over HTTP (store and previous_response_id)', () => {
  let bed: UpstreamTestBed;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;
  let accountId: string;

  beforeAll(async () => {
    bed = await startUpstreamTestBed(modelPerDialect(models));
    ({ fake: upstream, gateway, token, accountId } = bed);
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => upstream.reset());

  const create = (body: Record<string, unknown>, bearer = token) =>
    gateway.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: `Bearer ${bearer}` },
      payload: body,
    });

  async function createResponse(body: Record<string, unknown>): Promise<ResponseObject> {
    const response = await create(body);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<ResponseObject>();
  }

  const lastUpstreamBody = (): Record<string, unknown> => {
    const generation = upstream.requests.filter((request) => request.dialect !== undefined);
    return (generation.at(-1) as RecordedRequest).body as Record<string, unknown>;
  };

  it('continues one conversation across three upstream dialects', async () => {
    upstream.enqueue({ output: [{ text: 'Hello Ada.' }] });
    const first = await createResponse({
      model: models.anthropic,
      instructions: 'Be brief.',
      input: 'My name is Ada.',
      store: true,
    });
    expect(lastUpstreamBody()).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] }],
    });

    upstream.enqueue({ output: [{ text: 'You are Ada.' }] });
    const second = await createResponse({
      model: models.chat,
      input: [{ role: 'user', content: 'What is my name?' }],
      previous_response_id: first.id,
      store: true,
    });
    // The history arrives in the chat dialect; the first turn's instructions are not carried.
    expect(lastUpstreamBody().messages).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);

    upstream.enqueue({ output: [{ text: 'Ada, still.' }] });
    const third = await createResponse({
      model: models.responses,
      input: 'And now?',
      previous_response_id: second.id,
    });
    const sameDialect = lastUpstreamBody();
    // The upstream keeps nothing and never sees a response id of the gateway's.
    expect(sameDialect.store).toBe(false);
    expect(sameDialect).not.toHaveProperty('previous_response_id');
    expect(JSON.stringify(sameDialect)).not.toContain(first.id);
    expect(JSON.stringify(sameDialect)).not.toContain(second.id);
    const assistant = (text: string) => ({
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
    });
    expect(sameDialect.input).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      assistant('Hello Ada.'),
      { role: 'user', content: 'What is my name?' },
      assistant('You are Ada.'),
      { role: 'user', content: 'And now?' },
    ]);

    // The same-dialect answer (the upstream's own response id) can be continued elsewhere.
    upstream.enqueue({ output: [{ text: 'Goodbye.' }] });
    await createResponse({
      model: models.anthropic,
      input: 'Bye.',
      previous_response_id: third.id,
      store: false,
    });
    const messages = lastUpstreamBody().messages as Array<{ role: string }>;
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('keeps a streamed turn and continues it', async () => {
    upstream.enqueue({ output: [{ text: 'Streamed hello.' }] });
    const streamed = await create({ model: models.anthropic, input: 'Hi', stream: true });
    const events = parseServerSentEvents(streamed.body);
    const completed = JSON.parse(events.at(-1)?.data ?? '{}') as {
      type: string;
      response: ResponseObject;
    };
    expect(completed.type).toBe('response.completed');

    upstream.enqueue({ output: [{ text: 'ok' }] });
    await createResponse({
      model: models.chat,
      input: 'Again?',
      previous_response_id: completed.response.id,
    });
    expect(lastUpstreamBody().messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Streamed hello.' },
      { role: 'user', content: 'Again?' },
    ]);
  });

  it('keeps a response for the configured retention, then the sweep removes it', async () => {
    const before = Date.now();
    const kept = await createResponse({ model: models.chat, input: 'Remember me.' });
    const stored = await gateway.store.responses.findResponse(kept.id, accountId, Date.now());
    expect(stored?.createdAt).toBeGreaterThanOrEqual(before);
    expect((stored?.expiresAt ?? 0) - (stored?.createdAt ?? 0)).toBe(30 * day);
    expect(stored?.input).toEqual([{ role: 'user', content: 'Remember me.' }]);

    expect(await sweepExpiredResponses(gateway.store.responses, Date.now())).toBe(0);
    const later = (stored?.expiresAt ?? 0) + 1;
    expect(await sweepExpiredResponses(gateway.store.responses, later)).toBeGreaterThanOrEqual(1);
    const refused = await create({
      model: models.chat,
      input: 'Still there?',
      previous_response_id: kept.id,
    });
    expect(refused.statusCode).toBe(400);
  });

  it('answers 400 naming the id for an unknown previous response, without an upstream call', async () => {
    const response = await create({
      model: models.anthropic,
      input: 'Hi',
      previous_response_id: 'resp_does_not_exist',
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json<{ error: Record<string, unknown> }>();
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain("'resp_does_not_exist'");
    // OpenAI's shape: clients (Codex) resend the whole conversation on this code.
    expect(error.code).toBe('previous_response_not_found');
    expect(error.param).toBe('previous_response_id');
    expect(upstream.requests).toHaveLength(0);
  });

  it('lets an account chain only its own responses: a foreign id looks unknown', async () => {
    const owned = await createResponse({ model: models.chat, input: 'Secret: 42.' });
    const other = await gateway.createToken({ credits: 1_000_000_000 });
    const foreign = await create(
      { model: models.chat, input: 'Tell me the secret.', previous_response_id: owned.id },
      other.token,
    );
    const unknown = await create(
      { model: models.chat, input: 'Tell me the secret.', previous_response_id: 'resp_unknown' },
      other.token,
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body.replaceAll(owned.id, 'resp_unknown')).toBe(unknown.body);
    expect(upstream.requests).toHaveLength(1);
  });

  it('keeps nothing with store:false', async () => {
    const unstored = await createResponse({ model: models.chat, input: 'Hi', store: false });
    expect(await gateway.store.responses.findResponse(unstored.id, accountId, 0)).toBeUndefined();
    const refused = await create({
      model: models.chat,
      input: 'Hi',
      previous_response_id: unstored.id,
    });
    expect(refused.statusCode).toBe(400);
  });

  it('keeps nothing of a turn that failed mid-stream', async () => {
    upstream.enqueue({
      output: [{ text: 'This will break off.' }],
      midStreamError: { afterEvents: 3 },
    });
    const streamed = await create({ model: models.anthropic, input: 'Hi', stream: true });
    const events = parseServerSentEvents(streamed.body).map(
      (event) => JSON.parse(event.data) as { type: string; response?: ResponseObject },
    );
    expect(events.at(-1)?.type).toBe('response.failed');
    const failedId = events[0]?.response?.id as string;
    expect(await gateway.store.responses.findResponse(failedId, accountId, 0)).toBeUndefined();
  });

  it('refuses conversation, which would keep state at the upstream', async () => {
    const response = await create({ model: models.responses, input: 'Hi', conversation: 'c_1' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { details: { param: 'conversation' } } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('asks an OpenAI upstream for encrypted reasoning when a kept turn reasons', async () => {
    await createResponse({
      model: models.responses,
      input: 'Think.',
      reasoning: { effort: 'low' },
    });
    expect(lastUpstreamBody()).toMatchObject({
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    await createResponse({ model: models.responses, input: 'Plain.', store: false });
    expect(lastUpstreamBody()).not.toHaveProperty('include');
    expect(lastUpstreamBody().store).toBe(false);
  });

  it('stores each turn once, so a conversation costs storage linear in its length', async () => {
    const turns = 30;
    const ids: string[] = [];
    for (let index = 0; index < turns; index += 1) {
      const number = String(index).padStart(3, '0');
      upstream.enqueue({ output: [{ text: `Answer ${number}.` }] });
      const response = await createResponse({
        model: models.chat,
        input: `Question ${number}?`,
        ...(ids.length > 0 ? { previous_response_id: ids.at(-1) } : {}),
      });
      ids.push(response.id);
    }
    // The last turn was generated from the whole conversation.
    const messages = lastUpstreamBody().messages as Array<{ content: unknown }>;
    expect(messages).toHaveLength(2 * turns - 1);
    expect(messages.map((message) => message.content).slice(-3)).toEqual([
      'Question 028?',
      'Answer 028.',
      'Question 029?',
    ]);

    // Every row holds only its own question and answer: the same size for the 1st and the 30th.
    const rowBytes: number[] = [];
    for (const id of ids) {
      const stored = await gateway.store.responses.findResponse(id, accountId, Date.now());
      expect(stored?.input).toHaveLength(1);
      rowBytes.push(JSON.stringify(stored?.input).length + JSON.stringify(stored?.output).length);
    }
    const first = rowBytes[0] ?? 0;
    expect(first).toBeGreaterThan(0);
    expect(rowBytes).toEqual(Array.from({ length: turns }, () => first));
    const chain = await gateway.store.responses.findResponseChain(
      ids.at(-1) as string,
      accountId,
      Date.now(),
      1_000,
    );
    expect(chain?.map((response) => response.id)).toEqual(ids);
  });
});
