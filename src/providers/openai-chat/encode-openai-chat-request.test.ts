import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { encodeOpenAIChatRequest } from './encode-openai-chat-request.ts';

const options: ProviderRequestOptions = {
  upstreamModel: 'gpt-4.1-2025-04-14',
  promptCache: 'auto',
  defaultMaxOutputTokens: 4096,
};

const baseCall = (overrides: Partial<GenerationCall> = {}): GenerationCall => ({
  model: 'switchyard/gpt',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  stream: false,
  ...overrides,
});

const longToolName =
  'mcp__github__search_repositories_by_topic_and_language_with_pagination_support';

describe('encodeOpenAIChatRequest', () => {
  it('encodes a tool round trip: system, assistant tool calls, tool messages in order', () => {
    const call = baseCall({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.', cache: {} }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Oslo?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Two cities, two calls.' },
            { type: 'text', text: 'Checking.' },
            {
              type: 'tool-call',
              toolCallId: 'call_1',
              toolName: 'get_weather',
              input: '{"city":"Paris"}',
            },
            {
              type: 'tool-call',
              toolCallId: 'call_2',
              itemId: 'fc_2',
              toolName: 'get_weather',
              input: '{ "city" : "Oslo" }',
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool-result', toolCallId: 'call_1', content: '18°C' },
            { type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'text', text: '4°C' }] },
            { type: 'text', text: 'Which is warmer?' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather by city',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
          cache: { ttl: '1h' },
        },
      ],
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
    });
    const { value, issues } = encodeOpenAIChatRequest(call, options);
    expect(issues).toEqual([]);
    expect(value).toEqual({
      model: 'gpt-4.1-2025-04-14',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'Two cities, two calls.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{ "city" : "Oslo" }' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_2', content: '4°C' },
        { role: 'user', content: 'Which is warmer?' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather by city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
  });

  it('always asks for stream usage when streaming', () => {
    const { value } = encodeOpenAIChatRequest(baseCall({ stream: true }), options);
    expect(value['stream']).toBe(true);
    expect(value['stream_options']).toEqual({ include_usage: true });
  });

  it('maps sampling, limits, user and response formats', () => {
    const { value, issues } = encodeOpenAIChatRequest(
      baseCall({
        maxOutputTokens: 900,
        temperature: 0.2,
        topP: 0.9,
        stopSequences: ['END'],
        user: 'user-42',
        responseFormat: { type: 'json', schema: { type: 'object' }, strict: true },
      }),
      options,
    );
    expect(issues).toEqual([]);
    expect(value).toMatchObject({
      max_completion_tokens: 900,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      user: 'user-42',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'response', schema: { type: 'object' }, strict: true },
      },
    });
    expect(
      encodeOpenAIChatRequest(baseCall({ responseFormat: { type: 'json' } }), options).value[
        'response_format'
      ],
    ).toEqual({ type: 'json_object' });
  });

  it('replaces a user id longer than OpenAI accepts (Claude Code metadata.user_id) by a stable hash', () => {
    const long = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: 's' });
    const first = encodeOpenAIChatRequest(baseCall({ user: long }), options).value.user;
    expect(first).toMatch(/^sy-[0-9a-f]{61}$/);
    expect(encodeOpenAIChatRequest(baseCall({ user: long }), options).value.user).toBe(first);
    expect(encodeOpenAIChatRequest(baseCall({ user: 'u-1' }), options).value.user).toBe('u-1');
  });

  it('reports topK', () => {
    const { issues } = encodeOpenAIChatRequest(baseCall({ topK: 40 }), options);
    expect(issues.map((issue) => issue.path)).toEqual(['topK']);
  });

  it.each([
    ['anthropic signature', { provider: 'anthropic' as const, signature: 'EqQBCkYIBBgCIkA' }],
    ['anthropic redacted', { provider: 'anthropic' as const, redactedData: 'EmwKAhgBEgy' }],
    [
      'openai encrypted',
      { provider: 'openai' as const, encryptedContent: 'gAAAAB', itemId: 'rs_1' },
    ],
  ])('reports signed reasoning (%s) instead of dropping it', (_name, signed) => {
    const call = baseCall({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'hmm', ...signed },
            { type: 'text', text: 'hello' },
          ],
        },
      ],
    });
    const { issues } = encodeOpenAIChatRequest(call, options);
    expect(issues.map((issue) => issue.path)).toEqual(['messages[1].content[0]']);
  });

  it('reports images in tool results, which chat tool messages cannot carry, and marks failed results as errors', () => {
    const call = baseCall({
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_1',
              isError: true,
              content: [
                { type: 'text', text: 'failed' },
                { type: 'image', source: { kind: 'url', url: 'https://example.com/x.png' } },
              ],
            },
          ],
        },
      ],
    });
    const { value, issues } = encodeOpenAIChatRequest(call, options);
    expect(issues.map((issue) => issue.path)).toEqual(['messages[0].content[0].content[1]']);
    expect(JSON.stringify(value.messages)).toContain('Error: failed');
  });

  it('encodes base64 images as data URLs and URL images as they are', () => {
    const call = baseCall({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            {
              type: 'image',
              source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            },
            {
              type: 'image',
              source: { kind: 'url', url: 'https://example.com/cat.jpg' },
              cache: {},
            },
          ],
        },
      ],
    });
    expect(encodeOpenAIChatRequest(call, options).value['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('shortens long and invalid tool names consistently in tools, choice and history', () => {
    const call = baseCall({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'files.read', input: '{}' }],
        },
        { role: 'user', content: [{ type: 'tool-result', toolCallId: 'c1', content: 'ok' }] },
      ],
      tools: [
        { type: 'function', name: longToolName, inputSchema: { type: 'object' } },
        { type: 'function', name: 'files.read', inputSchema: { type: 'object' } },
      ],
      toolChoice: { type: 'tool', toolName: longToolName },
    });
    const { value, issues } = encodeOpenAIChatRequest(call, options);
    expect(issues).toEqual([]);
    const tools = value['tools'] as Array<{ function: { name: string } }>;
    const names = tools.map((tool) => tool.function.name);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(value['tool_choice']).toEqual({ type: 'function', function: { name: names[0] } });
    const history = (value['messages'] as Array<Record<string, unknown>>)[1] as {
      tool_calls: Array<{ function: { name: string } }>;
    };
    expect(history.tool_calls[0]?.function.name).toBe(names[1]);
  });

  it.each([
    [{ type: 'disabled' as const }, 'none'],
    [{ type: 'budget' as const, budgetTokens: 512 }, 'minimal'],
    [{ type: 'budget' as const, budgetTokens: 4000 }, 'low'],
    [{ type: 'budget' as const, budgetTokens: 10000 }, 'medium'],
    [{ type: 'budget' as const, budgetTokens: 31999 }, 'high'],
    [{ type: 'effort' as const, effort: 'minimal' as const }, 'minimal'],
    [{ type: 'effort' as const, effort: 'max' as const }, 'xhigh'],
    [{ type: 'effort' as const }, undefined],
  ])('maps reasoning %j to reasoning_effort %s', (reasoning, effort) => {
    const { value } = encodeOpenAIChatRequest(baseCall({ reasoning }), options);
    expect(value['reasoning_effort']).toBe(effort);
  });

  it('sends no parallel_tool_calls without tools (OpenAI rejects it there)', () => {
    const { value } = encodeOpenAIChatRequest(baseCall({ parallelToolCalls: false }), options);
    expect('parallel_tool_calls' in value).toBe(false);
  });

  it('sends assistant content null beside tool calls, and unsigned reasoning as reasoning_content', () => {
    const call = baseCall({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'plan' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: '' },
          ],
        },
      ],
    });
    const messages = encodeOpenAIChatRequest(call, options).value['messages'] as unknown[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'plan',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '' } }],
    });
  });
});
