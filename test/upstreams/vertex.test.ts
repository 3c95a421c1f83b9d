import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { WireJson } from '../fake-upstream/call-fake-upstream.ts';
import type { RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { buildRequest, type Conversation } from '../generation/surface-clients.ts';
import { fakeGeminiRetryDelaySeconds } from '../fake-upstream/wire-gemini.ts';
import {
  startVertexBed,
  vertexGeminiModel,
  vertexModel,
  vertexUpstreamModel,
  type VertexBed,
} from './vertex-test-bed.ts';

// The conformance suite (vertex-conformance.test.ts) covers each client dialect's answers and
// charges; these are what only Vertex AI does.
const modelPath = `/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models/${vertexUpstreamModel}`;

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let bed: VertexBed;
beforeAll(async () => {
  bed = await startVertexBed();
});
afterAll(() => bed.close());
beforeEach(() => bed.reset());

function conversation(overrides: Partial<Conversation> = {}): Conversation {
  return { model: vertexModel, stream: false, user: 'What is the weather in Paris?', ...overrides };
}

/** The generation calls that reached the fake Vertex AI. */
function vertexCalls(): RecordedRequest[] {
  return bed.fake.requests.filter((request) => request.path.startsWith(modelPath));
}

function lastVertexBody(): WireJson {
  return vertexCalls().at(-1)?.body;
}

describe('thinking across turns', () => {
  const signature = 'EpYBCkYIBxgCKkCvertexSignature+/==';
  const thinkThenCall = {
    output: [
      { reasoning: { text: 'Check the weather tool.', signature } },
      { toolCall: { id: 'toolu_think_1', name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ],
  };

  it('messages: the signed thinking block reaches Vertex AI again byte for byte', async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueue(thinkThenCall);
    const tools = [{ name: 'get_weather', input_schema: weatherTool.schema }];
    const user = { role: 'user', content: 'Weather in Oslo?' };
    const body = {
      model: vertexModel,
      max_tokens: 2048,
      tools,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    };
    const first = await bed.send('messages', token, { ...body, messages: [user] });
    expect(first.statusCode, first.body).toBe(200);
    const assistant = { role: 'assistant', content: JSON.parse(first.body).content };
    const result = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_think_1', content: 'cold' }],
    };
    const second = await bed.send('messages', token, {
      ...body,
      messages: [user, assistant, result],
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(lastVertexBody().messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'Check the weather tool.',
      signature,
    });
  });

  it('responses: the reasoning item carries the signature back to Vertex AI', async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueue(thinkThenCall);
    const tools = [{ type: 'function', name: 'get_weather', parameters: weatherTool.schema }];
    const user = {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'Weather in Oslo?' }],
    };
    const body = { model: vertexModel, store: false, tools, reasoning: { effort: 'high' } };
    const first = await bed.send('responses', token, { ...body, input: [user] });
    expect(first.statusCode, first.body).toBe(200);
    const output = JSON.parse(first.body).output as WireJson[];
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const second = await bed.send('responses', token, {
      ...body,
      input: [
        user,
        ...output,
        { type: 'function_call_output', call_id: 'toolu_think_1', output: 'cold' },
      ],
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(lastVertexBody().messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'Check the weather tool.',
      signature,
    });
  });

  it('chat: reasoning it cannot sign is refused with 400 naming the client field', async () => {
    const { token } = await bed.newClient();
    const response = await bed.send('chat', token, {
      model: vertexModel,
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.schema } },
      ],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Check the weather tool.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'cold' },
      ],
    });
    expect(response.statusCode).toBe(400);
    const error = JSON.parse(response.body).error;
    expect(error.code ?? error.type).toMatch(/unrepresentable_field/);
    expect(error.message).toContain('messages[1].reasoning_content');
    expect(vertexCalls()).toHaveLength(0);
  });
});

describe('the Vertex AI wire', () => {
  it("sends the client's betas without Anthropic's sign-in beta", async () => {
    const { token } = await bed.newClient();
    const response = await bed.send('messages', token, buildRequest('messages', conversation()), {
      'anthropic-beta': 'oauth-2025-04-20,context-management-2025-06-27',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(vertexCalls()[0]?.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(vertexCalls()[0]?.headers['anthropic-version']).toBeUndefined();
  });

  it('counts tokens at count-tokens:rawPredict with the upstream model in the body', async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueueTokenCount({ inputTokens: 321 });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      payload: { model: vertexModel, messages: [{ role: 'user', content: 'Count me' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ input_tokens: 321 });
    expect(response.headers['x-switchyard-token-count-source']).toBe('upstream');
    const counted = bed.fake.requests.at(-1);
    expect(counted?.path).toBe(
      '/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict',
    );
    expect(counted?.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      model: vertexUpstreamModel,
      messages: [{ role: 'user', content: 'Count me' }],
    });
  });

  it('cools a service account down after RESOURCE_EXHAUSTED', async () => {
    const { token } = await bed.newClient();
    bed.fake.behaveForKey(bed.accounts[0] as string, { status: 429 });
    const first = await bed.send('messages', token, buildRequest('messages', conversation()));
    expect(first.statusCode).toBe(429);
    expect(JSON.parse(first.body).error.message).toContain('Quota exceeded');
    expect(Number(first.headers['retry-after'])).toBe(30);
    const calls = vertexCalls().length;
    bed.fake.clearKeyBehaviour(bed.accounts[0] as string);
    const second = await bed.send('messages', token, buildRequest('messages', conversation()));
    expect(second.statusCode).toBe(429);
    expect(vertexCalls()).toHaveLength(calls);
  });

  it("relays the Anthropic publisher's own refusal as the client's 400", async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueue({ status: 400, errorMessage: 'messages.0.content: Field required' });
    const response = await bed.send('messages', token, buildRequest('messages', conversation()));
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error.message).toContain('messages.0.content: Field required');
  });
});

describe('Gemini on Vertex AI', () => {
  const geminiPath =
    '/v1/projects/fake-project/locations/us-east5/publishers/google/models/gemini-2.5-flash';

  it("counts tokens at the publisher's countTokens, with what that route takes", async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueueTokenCount({ inputTokens: 77 });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      payload: {
        model: vertexGeminiModel,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Count me' }],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ input_tokens: 77 });
    const counted = bed.fake.requests.at(-1);
    expect(counted?.path).toBe(`${geminiPath}:countTokens`);
    expect(Object.keys(counted?.body as WireJson).sort()).toEqual([
      'contents',
      'systemInstruction',
    ]);
    expect(counted?.key).toBe(bed.accounts[0]);
  });

  it('cools the key down for the RetryInfo wait of a RESOURCE_EXHAUSTED answer', async () => {
    const { token } = await bed.newClient();
    bed.fake.enqueue({ status: 429 });
    const body = { model: vertexGeminiModel, messages: [{ role: 'user', content: 'hi' }] };
    const response = await bed.send('chat', token, body);
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe(String(fakeGeminiRetryDelaySeconds));
    const calls = bed.fake.requests.length;
    expect((await bed.send('chat', token, body)).statusCode).toBe(429);
    expect(bed.fake.requests).toHaveLength(calls);
  });
});
