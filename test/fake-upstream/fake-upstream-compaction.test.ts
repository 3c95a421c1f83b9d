import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callFakeUpstream, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream-server.ts';
import { fakeCompactionContent } from './render-responses-compaction.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const compact = (body: unknown) =>
  callFakeUpstream(`${fake.url}/v1/responses/compact`, {
    headers: { authorization: 'Bearer upstream-key' },
    body,
  });

describe('fake upstream: POST /v1/responses/compact', () => {
  it('answers the user messages of the input, then one compaction item, with the scripted usage', async () => {
    fake.enqueue({ usage: { input: 300, cacheRead: 100, output: 20 } });
    const answer = await compact({
      model: 'gpt-fake',
      input: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'reply' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
      ],
    });
    expect(answer.status).toBe(200);
    const body = jsonOf(answer);
    expect(body.object).toBe('response.compaction');
    expect(
      body.output.map((item: { role?: string; type: string }) => item.role ?? item.type),
    ).toEqual(['user', 'user', 'compaction']);
    const item = body.output[2];
    expect(item.encrypted_content).toBe(fakeCompactionContent(item.id));
    expect(body.usage).toMatchObject({
      input_tokens: 400,
      input_tokens_details: { cached_tokens: 100 },
      output_tokens: 20,
    });
    expect(fake.requests[0]).toMatchObject({ path: '/v1/responses/compact', dialect: 'responses' });
  });

  it('answers a scripted error in the OpenAI shape', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '3' } });
    const answer = await compact({ model: 'gpt-fake', input: 'hi' });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('3');
    expect(jsonOf(answer).error.type).toBeDefined();
  });
});
