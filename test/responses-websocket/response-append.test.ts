import { beforeEach, describe, expect, it } from 'vitest';
import {
  startWebSocketTestBed,
  turn,
  wsModels,
  type ServerEvent,
} from './responses-websocket-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const types = (events: ServerEvent[]) => events.map((event) => event.type);
const responseOf = (events: ServerEvent[]) =>
  (events.at(-1) as unknown as { response: { id: string; status: string } }).response;

/** Codex's `response.append` frame (codex-api `ResponseAppendWsRequest`): only the new items. */
const append = (input: unknown[], extra: Record<string, unknown> = {}) =>
  ({ type: 'response.append', input, ...extra }) as unknown as Parameters<typeof turn>[1];

/** The upstream request as [role, texts] pairs, whichever dialect it was sent in. */
function conversationOf(body: Record<string, unknown>): Array<[string, string[]]> {
  const entries = (body.messages ?? body.input) as Array<{ role: string; content: unknown }>;
  return entries
    .filter((entry) => entry.role !== 'system' && entry.role !== 'developer')
    .map(({ role, content }) => [
      role,
      typeof content === 'string'
        ? [content]
        : (content as Array<{ text: string }>).map((part) => part.text),
    ]);
}

/**
 * Codex's `response.append` over the responses WebSocket: the new items continue
 * the connection's last response with the same parameters, on every upstream dialect.
 */
describe('response.append on the responses WebSocket', () => {
  const bed = useTestBed(startWebSocketTestBed);
  beforeEach(() => bed.fake.reset());

  for (const [dialect, model] of Object.entries(wsModels)) {
    it(`continues the last response with its parameters and the new items (${dialect} upstream)`, async () => {
      const socket = bed.connect();
      bed.fake.enqueue({ output: [{ text: 'Hello Ada.' }], usage: { input: 12, output: 3 } });
      const first = await turn(socket, {
        model,
        instructions: 'Be brief.',
        input: [{ role: 'user', content: 'My name is Ada.' }],
        max_output_tokens: 300,
        store: false,
      });
      expect(types(first).at(-1)).toBe('response.completed');
      const firstId = responseOf(first).id;

      bed.fake.enqueue({ output: [{ text: 'You are Ada.' }], usage: { input: 20, output: 3 } });
      const second = await turn(
        socket,
        append([{ type: 'message', role: 'user', content: 'What is my name?' }], {
          client_metadata: { 'x-codex-turn-metadata': '{}' },
        }),
      );
      expect(types(second)[0]).toBe('response.created');
      expect(types(second).at(-1)).toBe('response.completed');
      expect(responseOf(second).id).not.toBe(firstId);

      const [firstUpstream, secondUpstream] = bed.generationRequests();
      const body = secondUpstream?.body as Record<string, unknown>;
      expect(conversationOf(body)).toEqual([
        ['user', ['My name is Ada.']],
        ['assistant', ['Hello Ada.']],
        ['user', ['What is my name?']],
      ]);
      // The first request's parameters carry over: same upstream model, instructions, limit.
      const firstBody = firstUpstream?.body as Record<string, unknown>;
      expect(body.model).toBe(firstBody.model);
      expect(JSON.stringify(body)).toContain('Be brief.');
      const limit = (candidate: Record<string, unknown>) =>
        candidate.max_tokens ?? candidate.max_output_tokens ?? candidate.max_completion_tokens;
      expect(limit(body)).toBe(limit(firstBody));
      expect(JSON.stringify(body)).not.toContain(firstId);

      // An append continues the latest response: a third turn sees all of it.
      bed.fake.enqueue({ output: [{ text: 'Goodbye.' }] });
      const third = await turn(socket, append([{ role: 'user', content: 'Bye.' }]));
      expect(types(third).at(-1)).toBe('response.completed');
      const [, , thirdUpstream] = bed.generationRequests();
      expect(conversationOf(thirdUpstream?.body as Record<string, unknown>)).toEqual([
        ['user', ['My name is Ada.']],
        ['assistant', ['Hello Ada.']],
        ['user', ['What is my name?']],
        ['assistant', ['You are Ada.']],
        ['user', ['Bye.']],
      ]);
    });
  }

  it('answers an append with nothing to continue with an error frame of status 400', async () => {
    const socket = bed.connect();
    const events = await turn(socket, append([{ role: 'user', content: 'Hi' }]));
    expect(events[0]).toMatchObject({
      type: 'error',
      status: 400,
      error: { type: 'invalid_request_error', message: expect.stringContaining('response.create') },
    });
    expect(bed.generationRequests()).toHaveLength(0);
  });

  it('refuses an append that tries to change the request, or carries no items', async () => {
    const socket = bed.connect();
    bed.fake.enqueue({ output: [{ text: 'Hello.' }] });
    await turn(socket, { model: wsModels.responses, input: 'Hi', store: false });
    const changed = await turn(
      socket,
      append([{ role: 'user', content: 'Again' }], { model: wsModels.chat }),
    );
    expect(changed[0]).toMatchObject({ type: 'error', status: 400 });
    expect(JSON.stringify(changed[0])).toContain('model');
    const empty = await turn(socket, append([]));
    expect(empty[0]).toMatchObject({ type: 'error', status: 400 });
    // A refused frame leaves the chain intact: a valid append still continues the response.
    bed.fake.enqueue({ output: [{ text: 'Still here.' }] });
    const next = await turn(socket, append([{ role: 'user', content: 'Again' }]));
    expect(types(next).at(-1)).toBe('response.completed');
    expect(bed.generationRequests()).toHaveLength(2);
  });

  it('does not continue a turn that failed: the append is refused', async () => {
    const socket = bed.connect();
    bed.fake.enqueue({ output: [{ text: 'Hello.' }] });
    await turn(socket, { model: wsModels.responses, input: 'Hi', store: false });
    const failed = await turn(socket, {
      model: wsModels.responses,
      input: 'Hi',
      previous_response_id: 'resp_unknown',
      store: false,
    });
    expect(failed[0]).toMatchObject({ type: 'error', status: 400 });
    const events = await turn(socket, append([{ role: 'user', content: 'Hi' }]));
    expect(events[0]).toMatchObject({ type: 'error', status: 400 });
    expect(bed.generationRequests()).toHaveLength(1);
  });
});
