import WebSocket from 'ws';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  startWebSocketTestBed,
  turn,
  wsModels,
  type ServerEvent,
  type WebSocketTestBed,
} from './responses-websocket-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';

/** Polls until `check` passes or two seconds went by. */
async function eventually(check: () => Promise<void> | void): Promise<void> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** A raw client, for what the SDK hides: upgrade refusals and frames sent back to back. */
function rawSocket(bed: WebSocketTestBed, headers: Record<string, string>) {
  const socket = new WebSocket(`${bed.origin.replace('http', 'ws')}/v1/responses`, { headers });
  const frames: ServerEvent[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as ServerEvent));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, frames, opened };
}

function refusedUpgrade(bed: WebSocketTestBed, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = new WebSocket(`${bed.origin.replace('http', 'ws')}/v1/responses`, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => {});
  });
}

const types = (events: ServerEvent[]) => events.map((event) => event.type);
const responseOf = (events: ServerEvent[]) =>
  (events.at(-1) as unknown as { response: { id: string; status: string; output: unknown[] } })
    .response;

describe('responses over WebSocket with the openai SDK client', () => {
  const bed = useTestBed(startWebSocketTestBed);
  beforeEach(() => bed.fake.reset());

  for (const [label, model] of [
    ['anthropic upstream (cross dialect)', wsModels.anthropic],
    ['openai-responses upstream (same dialect)', wsModels.responses],
  ] as const) {
    it(`chains two store:false turns by previous_response_id (${label})`, async () => {
      const socket = bed.connect();
      bed.fake.enqueue({ output: [{ text: 'Hello Ada.' }], usage: { input: 12, output: 3 } });
      const first = await turn(socket, {
        model,
        instructions: 'Be brief.',
        input: [{ role: 'user', content: 'My name is Ada.' }],
        store: false,
      });
      expect(types(first)[0]).toBe('response.created');
      expect(types(first).at(-1)).toBe('response.completed');
      const sequence = first.map((event) => event.sequence_number as number);
      expect(sequence).toEqual([...sequence].sort((left, right) => left - right));
      const firstId = responseOf(first).id;

      bed.fake.enqueue({ output: [{ text: 'You are Ada.' }] });
      const second = await turn(socket, {
        model,
        instructions: 'Be brief.',
        input: [{ role: 'user', content: 'What is my name?' }],
        previous_response_id: firstId,
        store: false,
      });
      expect(types(second).at(-1)).toBe('response.completed');

      const [, upstream] = bed.generationRequests();
      const body = upstream?.body as Record<string, unknown>;
      expect(body).not.toHaveProperty('previous_response_id');
      expect(JSON.stringify(body)).not.toContain(firstId);
      if (model === wsModels.anthropic) {
        // The gateway's own prompt-cache marker (docs/api.md) may sit on the last block.
        const messages = body.messages as Array<{ role: string; content: Array<{ text: string }> }>;
        expect(
          messages.map(({ role, content }) => [role, content.map((part) => part.text)]),
        ).toEqual([
          ['user', ['My name is Ada.']],
          ['assistant', ['Hello Ada.']],
          ['user', ['What is my name?']],
        ]);
      } else {
        expect(body.store).toBe(false);
        expect(body.input).toEqual([
          { role: 'user', content: 'My name is Ada.' },
          expect.objectContaining({
            type: 'message',
            role: 'assistant',
            content: [expect.objectContaining({ type: 'output_text', text: 'Hello Ada.' })],
          }),
          { role: 'user', content: 'What is my name?' },
        ]);
      }
      // store:false: the history lived on the connection only.
      expect(
        await bed.gateway.store.responses.findResponse(firstId, bed.accountId, 0),
      ).toBeUndefined();
    });
  }

  it('meters each turn like a streamed HTTP request', async () => {
    const before = await bed.gateway.store.ledger.getBalance(bed.accountId);
    const socket = bed.connect();
    bed.fake.enqueue({ output: [{ text: 'Metered.' }], usage: { input: 1_000, output: 500 } });
    const events = await turn(socket, { model: wsModels.chat, input: 'Hi', store: false });
    expect(responseOf(events).status).toBe('completed');
    await eventually(async () => {
      const [record] = await bed.gateway.store.usage.listUsage(bed.accountId, 1);
      expect(record).toMatchObject({
        surface: 'responses',
        model: wsModels.chat,
        outcome: 'ok',
        inputTokens: 1_000,
        outputTokens: 500,
      });
      const after = await bed.gateway.store.ledger.getBalance(bed.accountId);
      expect(after.held).toBe(0);
      expect(before.balance - after.balance).toBe(record?.cost);
      expect(record?.cost).toBeGreaterThan(0);
    });
  });

  it('answers a prewarm without an upstream call or a charge; its id starts the next turn', async () => {
    const [latest] = await bed.gateway.store.usage.listUsage(bed.accountId, 1);
    const socket = bed.connect();
    const prewarm = await turn(socket, {
      model: wsModels.responses,
      input: [{ role: 'developer', content: 'House rules.' }],
      store: false,
      generate: false,
    });
    expect(types(prewarm)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ]);
    expect(responseOf(prewarm)).toMatchObject({ status: 'completed', output: [] });
    expect(bed.generationRequests()).toHaveLength(0);
    expect((await bed.gateway.store.usage.listUsage(bed.accountId, 1))[0]).toEqual(latest);

    const next = await turn(socket, {
      model: wsModels.responses,
      input: [{ role: 'user', content: 'Hello' }],
      previous_response_id: responseOf(prewarm).id,
      store: false,
    });
    expect(types(next).at(-1)).toBe('response.completed');
    expect((bed.generationRequests()[0]?.body as { input: unknown }).input).toEqual([
      { role: 'developer', content: 'House rules.' },
      { role: 'user', content: 'Hello' },
    ]);
  });

  it('answers an unknown previous_response_id with an error frame of status 400', async () => {
    const socket = bed.connect();
    const events = await turn(socket, {
      model: wsModels.chat,
      input: 'Hi',
      previous_response_id: 'resp_never_seen',
      store: false,
    });
    expect(events).toEqual([
      {
        type: 'error',
        status: 400,
        error: expect.objectContaining({
          type: 'invalid_request_error',
          code: 'previous_response_not_found',
          param: 'previous_response_id',
          message: expect.stringContaining("'resp_never_seen'"),
        }),
      },
    ]);
    expect(bed.generationRequests()).toHaveLength(0);
    // The connection stays usable.
    const after = await turn(socket, { model: wsModels.chat, input: 'Hi', store: false });
    expect(types(after).at(-1)).toBe('response.completed');
  });

  it('validates a response.create frame with the HTTP schema', async () => {
    const socket = bed.connect();
    const events = await turn(socket, { model: wsModels.chat, store: false });
    expect(events[0]).toMatchObject({
      type: 'error',
      status: 400,
      error: { type: 'invalid_request_error', message: expect.stringContaining('input') },
    });
  });

  it('refuses a frame carrying a client token or nested too deeply, as an HTTP body would be', async () => {
    const { generateClientToken } = await import('../../src/auth/client-token.ts');
    const socket = bed.connect();
    const withToken = await turn(socket, {
      model: wsModels.chat,
      input: `my key is ${generateClientToken().token}`,
      store: false,
    });
    expect(withToken).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code: 'credential_in_body' }),
      }),
    ]);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 200; level += 1) deep = { a: deep };
    const tooDeep = await turn(socket, {
      model: wsModels.chat,
      input: 'Hi',
      store: false,
      metadata: deep as Record<string, string>,
    });
    expect(tooDeep).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({
          code: 'json_too_deep',
          message: expect.stringContaining('frame.metadata.a.a'),
        }),
      }),
    ]);
    expect(bed.generationRequests()).toHaveLength(0);
    const after = await turn(socket, { model: wsModels.chat, input: 'Hi', store: false });
    expect(types(after).at(-1)).toBe('response.completed');
  });

  it('keeps a store:true turn beyond the connection, for HTTP to continue', async () => {
    const socket = bed.connect();
    bed.fake.enqueue({ output: [{ text: 'Kept.' }] });
    const events = await turn(socket, { model: wsModels.chat, input: 'Keep this.', store: true });
    const id = responseOf(events).id;
    const stored = await bed.gateway.store.responses.findResponse(id, bed.accountId, Date.now());
    expect(stored?.input).toEqual([{ role: 'user', content: 'Keep this.' }]);

    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: `Bearer ${bed.token}` },
      payload: { model: wsModels.chat, input: 'Still?', previous_response_id: id },
    });
    expect(response.statusCode).toBe(200);
    expect((bed.generationRequests().at(-1)?.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'Keep this.' },
      { role: 'assistant', content: 'Kept.' },
      { role: 'user', content: 'Still?' },
    ]);
  });

  it('refuses the upgrade with 401 before it happens for a missing or invalid token', async () => {
    const missing = await refusedUpgrade(bed, {});
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { type: 'authentication_error' } });
    const invalid = await refusedUpgrade(bed, { authorization: 'Bearer sy_not_a_real_token' });
    expect(invalid.status).toBe(401);
    const { token: reader } = await bed.gateway.createToken({ permissions: ['model:read'] });
    const unpermitted = await refusedUpgrade(bed, { authorization: `Bearer ${reader}` });
    expect(unpermitted.status).toBe(401);

    const socket = bed.connect('sy_not_a_real_token');
    const events = await turn(socket, { model: wsModels.chat, input: 'Hi' });
    expect(JSON.stringify(events)).toContain('401');
  });

  it('answers a plain GET with 426: the route is a WebSocket only', async () => {
    const response = await bed.gateway.app.inject({
      method: 'GET',
      url: '/responses',
      headers: { authorization: `Bearer ${bed.token}` },
    });
    expect(response.statusCode).toBe(426);
    expect(response.headers.upgrade).toBe('websocket');
  });

  it('runs one response at a time: a second response.create meanwhile gets an error frame', async () => {
    const { socket, frames, opened } = rawSocket(bed, { authorization: `Bearer ${bed.token}` });
    await opened;
    bed.fake.enqueue({ output: [{ text: 'Slow.' }], delayMs: 300 });
    const create = JSON.stringify({
      type: 'response.create',
      model: wsModels.chat,
      input: 'Hi',
      store: false,
    });
    socket.send(create);
    socket.send(create);
    await eventually(() => {
      expect(types(frames)).toContain('response.completed');
    });
    expect(frames[0]).toMatchObject({ type: 'error', status: 409 });
    expect(bed.generationRequests()).toHaveLength(1);
    socket.close();
  });

  it('aborts the running turn when the connection drops and bills what was delivered', async () => {
    const { accountId, token } = await bed.gateway.createToken({ credits: 1_000_000_000 });
    const { socket, frames, opened } = rawSocket(bed, { authorization: `Bearer ${token}` });
    await opened;
    bed.fake.enqueue({ output: [{ text: 'word '.repeat(200) }], chunkDelayMs: 30 });
    socket.send(
      JSON.stringify({ type: 'response.create', model: wsModels.chat, input: 'Hi', store: false }),
    );
    await eventually(() => {
      expect(types(frames)).toContain('response.output_text.delta');
    });
    socket.terminate();
    await eventually(async () => {
      expect(bed.generationRequests()[0]?.clientAborted).toBe(true);
      const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
      expect(record).toMatchObject({ outcome: 'cancelled', surface: 'responses' });
      expect(record?.outputTokens).toBeGreaterThan(0);
      expect((await bed.gateway.store.ledger.getBalance(accountId)).held).toBe(0);
    });
  });
});
