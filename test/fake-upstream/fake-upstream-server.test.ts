import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, eventsOf, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeUpstream } from './fake-upstream-server.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const anthropicHeaders = { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-upstream' };
const messageBody = {
  model: 'claude-fake',
  max_tokens: 64,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'ping me back' }] }],
};

describe('recording', () => {
  it('records method, path, query, lower-cased headers and both body forms', async () => {
    await callFakeUpstream(`${fake.url}/v1/messages?beta=true`, {
      headers: { ...anthropicHeaders, 'X-Claude-Code-Session-Id': 'session-1' },
      body: messageBody,
    });
    const [recorded] = fake.requests;
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      query: { beta: 'true' },
      body: messageBody,
      dialect: 'anthropic',
      clientAborted: false,
    });
    expect(recorded?.headers['x-api-key']).toBe('sk-upstream');
    expect(recorded?.headers['x-claude-code-session-id']).toBe('session-1');
    expect(JSON.parse(recorded?.rawBody ?? '')).toEqual(messageBody);
  });

  it('marks a request whose client went away mid-stream', async () => {
    fake.enqueue({ output: [{ text: 'a long answer '.repeat(10) }], chunkDelayMs: 30 });
    const controller = new AbortController();
    const pending = callFakeUpstream(`${fake.url}/v1/messages`, {
      body: { ...messageBody, stream: true },
      signal: controller.signal,
    }).catch(() => undefined);
    await sleep(100);
    controller.abort();
    await pending;
    for (let attempt = 0; attempt < 50 && !fake.requests[0]?.clientAborted; attempt += 1) {
      await sleep(10);
    }
    expect(fake.requests[0]?.clientAborted).toBe(true);
  });
});

describe('scripting', () => {
  it('echoes the last user text in each dialect when nothing is queued', async () => {
    const message = jsonOf(
      await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody }),
    );
    expect(message.content[0].text).toBe('echo: ping me back');
    const completion = jsonOf(
      await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
        body: { model: 'm', messages: [{ role: 'user', content: 'chat text' }] },
      }),
    );
    expect(completion.choices[0].message.content).toBe('echo: chat text');
    const response = jsonOf(
      await callFakeUpstream(`${fake.url}/v1/responses`, {
        body: {
          model: 'm',
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'responses text' }] }],
        },
      }),
    );
    expect(response.output[0].content[0].text).toBe('echo: responses text');
  });

  it('consumes queued replies in order across routes and reset clears the queue', async () => {
    fake.enqueue(
      { output: [{ text: 'first' }] },
      { output: [{ text: 'second' }] },
      { status: 500 },
    );
    expect(fake.pendingReplies).toBe(3);
    const first = await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody });
    const second = await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
      body: { model: 'm', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(jsonOf(first).content[0].text).toBe('first');
    expect(jsonOf(second).choices[0].message.content).toBe('second');
    fake.reset();
    expect(fake.pendingReplies).toBe(0);
    expect(fake.requests).toHaveLength(0);
  });

  it('passes the recorded request to a reply function', async () => {
    fake.enqueue((request) => ({
      output: [{ text: `model was ${(request.body as { model: string }).model}` }],
    }));
    const answer = await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody });
    expect(jsonOf(answer).content[0].text).toBe('model was claude-fake');
  });

  it('answers a scripted error verbatim when errorBody is given', async () => {
    fake.enqueue({
      status: 503,
      errorBody: 'upstream connect error',
      headers: { 'x-extra': 'yes' },
    });
    const answer = await callFakeUpstream(`${fake.url}/v1/responses`, {
      body: { model: 'm', input: 'x' },
    });
    expect(answer.status).toBe(503);
    expect(answer.text).toBe('upstream connect error');
    expect(answer.headers['x-extra']).toBe('yes');
  });

  it('reports tool arguments that are not JSON as a fake-upstream 500', async () => {
    fake.enqueue({ output: [{ toolCall: { name: 'f', arguments: '{"broken' } }] });
    const answer = await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody });
    expect(answer.status).toBe(500);
    expect(jsonOf(answer).error.message).toMatch(/not JSON/);
  });
});

describe('timing and cut streams', () => {
  const streamBody = { ...messageBody, stream: true };

  it('waits delayMs before the first byte and chunkDelayMs between events', async () => {
    fake.enqueue(
      { output: [{ text: 'hi' }], delayMs: 120 },
      { output: [{ text: 'hi' }], chunkDelayMs: 20 },
    );
    let started = performance.now();
    await callFakeUpstream(`${fake.url}/v1/messages`, { body: messageBody });
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    started = performance.now();
    const answer = await callFakeUpstream(`${fake.url}/v1/messages`, { body: streamBody });
    const events = eventsOf(answer).length;
    expect(performance.now() - started).toBeGreaterThanOrEqual((events - 1) * 20 - 10);
  });

  it('resets the connection after cutAfterEvents events by default', async () => {
    fake.enqueue({ output: [{ text: 'this stream never finishes' }], cutAfterEvents: 5 });
    const answer = await callFakeUpstream(`${fake.url}/v1/messages`, { body: streamBody });
    expect(answer.status).toBe(200);
    expect(answer.broken).toBe(true);
    expect(eventsOf(answer)).toHaveLength(5);
    expect(fake.requests[0]?.clientAborted).toBe(false);
  });

  it('ends the body cleanly but early with cutMode end', async () => {
    fake.enqueue({ output: [{ text: 'cut short' }], cutAfterEvents: 3, cutMode: 'end' });
    const answer = await callFakeUpstream(`${fake.url}/v1/chat/completions`, {
      body: { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] },
    });
    expect(answer.broken).toBe(false);
    const events = eventsOf(answer);
    expect(events).toHaveLength(3);
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });
});

describe('auth, models and unknown routes', () => {
  it('checks the upstream key per dialect when requireKey is set', async () => {
    const guarded = await startFakeUpstream({ requireKey: 'sk-upstream' });
    try {
      const chatBody = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
      const call = (path: string, headers: Record<string, string>, body: unknown) =>
        callFakeUpstream(`${guarded.url}${path}`, { headers, body });
      expect((await call('/v1/messages', { 'x-api-key': 'sk-upstream' }, messageBody)).status).toBe(
        200,
      );
      expect(
        (await call('/v1/messages', { authorization: 'Bearer sk-upstream' }, messageBody)).status,
      ).toBe(200);
      const wrongKey = await call('/v1/messages', { 'x-api-key': 'sk-other' }, messageBody);
      expect(wrongKey.status).toBe(401);
      expect(jsonOf(wrongKey)).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error' },
      });
      expect(
        (await call('/v1/chat/completions', { authorization: 'Bearer sk-upstream' }, chatBody))
          .status,
      ).toBe(200);
      const keyHeaderOnOpenAi = await call(
        '/v1/chat/completions',
        { 'x-api-key': 'sk-upstream' },
        chatBody,
      );
      expect(keyHeaderOnOpenAi.status).toBe(401);
      expect(jsonOf(keyHeaderOnOpenAi).error.code).toBe('invalid_api_key');
    } finally {
      await guarded.close();
    }
  });

  it('lists models in the Anthropic style when asked with anthropic-version, else OpenAI', async () => {
    const custom = await startFakeUpstream({ models: ['alpha', 'beta'] });
    try {
      const anthropic = jsonOf(
        await callFakeUpstream(`${custom.url}/v1/models?limit=1000`, {
          method: 'GET',
          headers: anthropicHeaders,
        }),
      );
      expect(anthropic).toMatchObject({ has_more: false, first_id: 'alpha', last_id: 'beta' });
      expect(anthropic.data[0]).toMatchObject({ type: 'model', id: 'alpha' });
      const openAi = jsonOf(await callFakeUpstream(`${custom.url}/v1/models`, { method: 'GET' }));
      expect(openAi.object).toBe('list');
      expect(openAi.data.map((model: { id: string }) => model.id)).toEqual(['alpha', 'beta']);
    } finally {
      await custom.close();
    }
  });

  it('answers unknown routes and non-JSON bodies with JSON errors', async () => {
    const missing = await callFakeUpstream(`${fake.url}/v2/nothing`, { body: {} });
    expect(missing.status).toBe(404);
    expect(jsonOf(missing).error.message).toMatch(/no route/);
    const notJson = await callFakeUpstream(`${fake.url}/v1/messages`, {
      headers: anthropicHeaders,
      body: 'just a string',
    });
    expect(notJson.status).toBe(400);
    expect(jsonOf(notJson).error.type).toBe('invalid_request_error');
  });
});
