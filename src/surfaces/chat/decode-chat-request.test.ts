import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeChatRequest } from './decode-chat-request.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

const minimal = (extra: Record<string, unknown> = {}) => ({
  model: 'switchyard/m',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

const issuePaths = (body: Record<string, unknown>) =>
  decodeChatRequest(body).issues.map((issue) => issue.path);

describe('decodeChatRequest', () => {
  it('decodes an SDK tool round trip exactly', () => {
    const { value, issues } = decodeChatRequest(fixture('chat-request-tool-round-trip.json'));
    expect(issues).toEqual([]);
    expect(value).toEqual({
      model: 'switchyard/claude-sonnet',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are a weather assistant.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: "What's the weather where this photo was taken, and in Oslo?" },
            {
              type: 'image',
              source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRgABAQ==' },
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call_Wk3nHq8vR2',
              toolName: 'get_weather',
              input: '{"location": "Paris, FR"}',
            },
            {
              type: 'tool-call',
              toolCallId: 'call_9aQ2mZt5Lx',
              toolName: 'get_weather',
              input: '{"location":"Oslo" }',
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool-result', toolCallId: 'call_Wk3nHq8vR2', content: '18°C, sunny' },
            {
              type: 'tool-result',
              toolCallId: 'call_9aQ2mZt5Lx',
              content: [
                { type: 'text', text: '4°C' },
                { type: 'text', text: ', rain' },
              ],
            },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Which is warmer?' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather',
          inputSchema: {
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
            additionalProperties: false,
          },
          strict: true,
        },
      ],
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      maxOutputTokens: 1024,
      temperature: 0.3,
      stream: true,
    });
  });

  it('decodes limits, stop, reasoning effort, response format, user and reasoning replay', () => {
    const { value, issues } = decodeChatRequest(fixture('chat-request-reasoning-replay.json'));
    expect(issues).toEqual([]);
    expect(value).toMatchObject({
      maxOutputTokens: 2000,
      topP: 0.95,
      stopSequences: ['###'],
      reasoning: { type: 'effort', effort: 'high' },
      responseFormat: {
        type: 'json',
        name: 'answer',
        strict: true,
        schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      user: 'user-1234',
      stream: false,
    });
    expect(value.messages[2]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: "France's capital is Paris." },
        { type: 'text', text: '{"city":"Paris"}' },
      ],
    });
  });

  it.each([
    ['none', { type: 'disabled' }],
    ['minimal', { type: 'effort', effort: 'minimal' }],
    ['xhigh', { type: 'effort', effort: 'xhigh' }],
  ])('maps reasoning_effort %s', (effort, reasoning) => {
    expect(decodeChatRequest(minimal({ reasoning_effort: effort })).value.reasoning).toEqual(
      reasoning,
    );
  });

  it.each([
    [{ type: 'text' }, { type: 'text' }],
    [{ type: 'json_object' }, { type: 'json' }],
  ])('maps response_format %j', (format, expected) => {
    expect(decodeChatRequest(minimal({ response_format: format })).value.responseFormat).toEqual(
      expected,
    );
  });

  it.each([
    ['required', { type: 'required' }],
    ['none', { type: 'none' }],
    [
      { type: 'function', function: { name: 'lookup' } },
      { type: 'tool', toolName: 'lookup' },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    expect(decodeChatRequest(minimal({ tool_choice: choice })).value.toolChoice).toEqual(expected);
  });

  it('maps stop arrays, max_tokens alone and safety_identifier', () => {
    const { value, issues } = decodeChatRequest(
      minimal({ stop: ['a', 'b'], max_tokens: 50, safety_identifier: 'hash-1' }),
    );
    expect(issues).toEqual([]);
    expect(value).toMatchObject({ stopSequences: ['a', 'b'], maxOutputTokens: 50, user: 'hash-1' });
  });

  it('treats null optional fields as absent', () => {
    const { value, issues } = decodeChatRequest(
      minimal({
        tools: null,
        tool_choice: null,
        stop: null,
        seed: null,
        n: null,
        user: null,
        response_format: null,
      }),
    );
    expect(issues).toEqual([]);
    expect(value).toEqual({
      model: 'switchyard/m',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      stream: false,
    });
  });

  it('accepts include_usage and include_obfuscation as equivalent', () => {
    expect(
      issuePaths(
        minimal({
          stream: true,
          stream_options: { include_usage: true, include_obfuscation: false },
        }),
      ),
    ).toEqual([]);
  });

  it('accepts the default values of OpenAI-only fields as equivalent', () => {
    expect(
      issuePaths(
        minimal({
          n: 1,
          logprobs: false,
          top_logprobs: 0,
          logit_bias: {},
          presence_penalty: 0,
          frequency_penalty: 0,
          modalities: ['text'],
          service_tier: 'auto',
          store: false,
          metadata: {},
        }),
      ),
    ).toEqual([]);
  });

  it.each([
    ['n', 2],
    ['seed', 42],
    ['logprobs', true],
    ['top_logprobs', 3],
    ['logit_bias', { '50256': -100 }],
    ['presence_penalty', 0.5],
    ['frequency_penalty', 0.5],
    ['modalities', ['text', 'audio']],
    ['audio', { voice: 'alloy', format: 'mp3' }],
    ['prediction', { type: 'content', content: 'x' }],
    ['web_search_options', {}],
    ['service_tier', 'flex'],
    ['store', true],
    ['metadata', { run: '1' }],
    ['functions', [{ name: 'f' }]],
    ['prompt_cache_key', 'k'],
    ['verbosity', 'low'],
  ])('reports %s with its path', (field, value) => {
    expect(issuePaths(minimal({ [field]: value }))).toEqual([field]);
  });

  it.each([
    [{ max_tokens: 10, max_completion_tokens: 20 }, 'max_tokens'],
    [{ user: 'a', safety_identifier: 'b' }, 'safety_identifier'],
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort'],
    [{ response_format: { type: 'grammar' } }, 'response_format.type'],
    [
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', schema: {}, description: 'd' },
        },
      },
      'response_format.json_schema.description',
    ],
    [{ stream_options: { include_usage: true, chunk_size: 3 } }, 'stream_options.chunk_size'],
    [{ tools: [{ type: 'custom', custom: { name: 'grammar' } }] }, 'tools[0].type'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [
      { tools: [{ type: 'function', function: { name: 'f', parameters: {}, examples: [] } }] },
      'tools[0].function.examples',
    ],
    [
      {
        tools: [
          { type: 'function', function: { name: 'f' }, cache_control: { type: 'ephemeral' } },
        ],
      },
      'tools[0].cache_control',
    ],
    [
      { tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } },
      'tool_choice',
    ],
    [
      { tool_choice: { type: 'function', function: { name: 'f', strict: true } } },
      'tool_choice.function.strict',
    ],
  ])('reports %j at %s', (extra, path) => {
    expect(issuePaths(minimal(extra))).toEqual([path]);
  });

  it('gives a tool without parameters the empty parameter list OpenAI means by it', () => {
    const { value } = decodeChatRequest(
      minimal({ tools: [{ type: 'function', function: { name: 'ping' } }] }),
    );
    expect(value.tools).toEqual([
      { type: 'function', name: 'ping', inputSchema: { type: 'object', properties: {} } },
    ]);
  });
});
