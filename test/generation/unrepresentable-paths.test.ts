import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';
import { surfacePaths, type SurfaceName } from './surface-clients.ts';

/**
 * Every unrepresentable field of the translated routes of the conformance matrix
 * (3 client dialects × 3 upstream dialects, same-dialect routes excepted) is reported with the
 * client's own JSON path and field name, and each path resolves in the body the client sent.
 */

type Json = Record<string, unknown>;

const models = {
  anthropic: 'paths-via-anthropic',
  'openai-chat': 'paths-via-chat',
  'openai-responses': 'paths-via-responses',
} as const;
type ProviderKind = keyof typeof models;

interface PathCase {
  name: string;
  surface: SurfaceName;
  provider: ProviderKind;
  body: Json;
  paths: string[];
}

const weatherCall = (args: string) => ({
  id: 'call_1',
  type: 'function',
  function: { name: 'get_weather', arguments: args },
});
const chatTools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
];
const chatToolLoop = (assistant: Json): Json[] => [
  { role: 'user', content: 'Weather in Oslo?' },
  { role: 'assistant', content: null, tool_calls: [weatherCall('{"city":"Oslo"}')], ...assistant },
  { role: 'tool', tool_call_id: 'call_1', content: '4C' },
];
const messagesToolLoop = (thinking: Json): Json[] => [
  { role: 'user', content: 'Weather in Oslo?' },
  {
    role: 'assistant',
    content: [thinking, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '4C' }] },
];
const messagesTools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
const responsesTools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }];
const responsesCall = (args: string): Json => ({
  type: 'function_call',
  call_id: 'call_1',
  name: 'get_weather',
  arguments: args,
});
const responsesLoop = (reasoning: Json): Json[] => [
  { role: 'user', content: 'Weather in Oslo?' },
  { type: 'reasoning', summary: [], ...reasoning },
  responsesCall('{}'),
  { type: 'function_call_output', call_id: 'call_1', output: '4C' },
];
const signed = { type: 'thinking', thinking: 'Let me look.', signature: 'EqQBCkgIBhABGAIiQL7x' };
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } };

const cases: PathCase[] = [
  // Message-style client.
  ...(['openai-chat', 'openai-responses'] as const).map((provider) => ({
    name: 'top_k',
    surface: 'messages' as const,
    provider,
    body: { max_tokens: 100, top_k: 5, messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['top_k'],
  })),
  {
    name: 'stop_sequences',
    surface: 'messages',
    provider: 'openai-responses',
    body: { max_tokens: 100, stop_sequences: ['END'], messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['stop_sequences'],
  },
  {
    name: 'max_tokens below the upstream minimum',
    surface: 'messages',
    provider: 'openai-responses',
    body: { max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['max_tokens'],
  },
  ...(['openai-chat', 'openai-responses'] as const).map((provider) => ({
    name: 'Anthropic-signed thinking in the tool loop',
    surface: 'messages' as const,
    provider,
    body: { max_tokens: 100, tools: messagesTools, messages: messagesToolLoop(signed) },
    paths: ['messages[1].content[0]'],
  })),
  {
    name: 'an image inside a tool result',
    surface: 'messages' as const,
    provider: 'openai-chat',
    body: {
      max_tokens: 100,
      tools: messagesTools,
      messages: [
        ...messagesToolLoop({ type: 'text', text: 'Looking.' }).slice(0, 2),
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [image] }],
        },
      ],
    },
    paths: ['messages[2].content[0].content[0]'],
  },
  // Chat-style client.
  ...(['anthropic', 'openai-responses'] as const).map((provider) => ({
    name: 'reasoning_content in the tool loop',
    surface: 'chat' as const,
    provider,
    body: { tools: chatTools, messages: chatToolLoop({ reasoning_content: 'Call it.' }) },
    paths: ['messages[1].reasoning_content'],
  })),
  {
    name: 'response_format json_object',
    surface: 'chat',
    provider: 'anthropic',
    body: { response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['response_format'],
  },
  {
    name: 'reasoning_effort minimal',
    surface: 'chat',
    provider: 'anthropic',
    body: { reasoning_effort: 'minimal', messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['reasoning_effort'],
  },
  {
    name: 'a system message inside the conversation',
    surface: 'chat',
    provider: 'anthropic',
    body: {
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
      ],
    },
    paths: ['messages[2]'],
  },
  {
    name: 'tool arguments that are not a JSON object',
    surface: 'chat',
    provider: 'anthropic',
    body: {
      tools: chatTools,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [weatherCall('[1]')] },
        { role: 'tool', tool_call_id: 'call_1', content: '4C' },
      ],
    },
    paths: ['messages[1].tool_calls[0].function.arguments'],
  },
  {
    name: 'stop',
    surface: 'chat',
    provider: 'openai-responses',
    body: { stop: ['END'], messages: [{ role: 'user', content: 'Hi' }] },
    paths: ['stop'],
  },
  ...(['max_tokens', 'max_completion_tokens'] as const).map((field) => ({
    name: `${field} below the upstream minimum`,
    surface: 'chat' as const,
    provider: 'openai-responses' as const,
    body: { [field]: 1, messages: [{ role: 'user', content: 'Hi' }] },
    paths: [field],
  })),
  // Responses-style client.
  {
    name: 'an unsigned reasoning item in the tool loop',
    surface: 'responses',
    provider: 'anthropic',
    body: {
      tools: responsesTools,
      input: responsesLoop({ summary: [{ type: 'summary_text', text: 'Call it.' }] }),
    },
    paths: ['input[1]'],
  },
  {
    name: 'an OpenAI-encrypted reasoning item in the tool loop',
    surface: 'responses',
    provider: 'openai-chat',
    body: { tools: responsesTools, input: responsesLoop({ id: 'rs_1', encrypted_content: 'gA' }) },
    paths: ['input[1]'],
  },
  {
    name: 'reasoning.effort minimal',
    surface: 'responses',
    provider: 'anthropic',
    body: { reasoning: { effort: 'minimal' }, input: 'Hi' },
    paths: ['reasoning.effort'],
  },
  {
    name: 'text.format json_object',
    surface: 'responses',
    provider: 'anthropic',
    body: { text: { format: { type: 'json_object' } }, input: 'Hi' },
    paths: ['text.format'],
  },
  {
    name: 'a developer message inside the conversation',
    surface: 'responses',
    provider: 'anthropic',
    body: {
      input: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
      ],
    },
    paths: ['input[2]'],
  },
  {
    name: 'function call arguments that are not a JSON object',
    surface: 'responses',
    provider: 'anthropic',
    body: {
      tools: responsesTools,
      input: [
        { role: 'user', content: 'Weather?' },
        responsesCall('[1]'),
        { type: 'function_call_output', call_id: 'call_1', output: '4C' },
      ],
    },
    paths: ['input[1].arguments'],
  },
  {
    name: 'an image in a function call output',
    surface: 'responses',
    provider: 'openai-chat',
    body: {
      tools: responsesTools,
      input: [
        { role: 'user', content: 'Weather?' },
        responsesCall('{}'),
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: [{ type: 'input_image', image_url: 'data:image/png;base64,iVBO' }],
        },
      ],
    },
    paths: ['input[2].output[0]'],
  },
];

/** The value at a JSON path such as `messages[1].tool_calls[0].function.arguments`. */
function resolvePath(body: unknown, path: string): unknown {
  let value = body;
  for (const segment of path.match(/[^.[\]]+/g) ?? []) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

describe('unrepresentable fields are named by the client’s own path', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ requireKey: 'paths-key' });
    process.env.PATHS_UPSTREAM_KEY = 'paths-key';
    gateway = await startTestGateway({
      providers: Object.fromEntries(
        Object.keys(models).map((kind) => [
          kind,
          { kind, baseUrl: upstream.url, apiKeyEnv: 'PATHS_UPSTREAM_KEY' },
        ]),
      ),
      models: (Object.keys(models) as ProviderKind[]).map((kind) => testModel(models[kind], kind)),
    });
    ({ token } = await gateway.createToken({ credits: 100_000_000 }));
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const { name, surface, provider, body, paths } of cases) {
    it(`${surface} → ${provider}: ${name} → ${paths.join(', ')}`, async () => {
      const sent = { model: models[provider], ...body };
      const response = await gateway.app.inject({
        method: 'POST',
        url: surfacePaths[surface],
        headers:
          surface === 'messages' ? { 'x-api-key': token } : { authorization: `Bearer ${token}` },
        payload: sent,
      });
      expect(response.statusCode, response.body).toBe(400);
      const error = response.json().error;
      expect(error.details.route).toBe(`${surface} → ${provider}`);
      const reported = error.details.issues.map((issue: { path: string }) => issue.path);
      expect(reported).toEqual(paths);
      for (const path of reported) {
        expect(resolvePath(sent, path), `${path} in ${JSON.stringify(sent)}`).toBeDefined();
        expect(error.message).toContain(path);
      }
    });
  }
});
