import { describe, expect, it } from 'vitest';
import { readResponsesRequestFixture } from '../../wire/responses/__fixtures__/read-responses-request-fixture.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';

const paths = (body: Record<string, unknown>) =>
  decodeResponsesRequest(body).issues.map((issue) => issue.path);
const minimal = { model: 'm', input: 'hi' };

describe('decodeResponsesRequest: a Codex turn', () => {
  it('maps every field of a first Codex request and reports only the web search tool', () => {
    const { value, issues } = decodeResponsesRequest(
      readResponsesRequestFixture('codex-request.json'),
    );
    expect(issues).toEqual([{ path: 'tools[3]', reason: expect.stringContaining('web_search') }]);
    expect(value.messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'user',
    ]);
    expect(value.messages[2]?.content).toHaveLength(2);
    expect(value).toMatchObject({
      model: 'claude-sonnet-4-6',
      stream: true,
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      reasoning: { type: 'effort', effort: 'medium', summary: 'auto' },
    });
    expect(value.tools.map((tool) => tool.name)).toEqual([
      'shell_command',
      'update_plan',
      'mcp__docs--search',
      'mcp__docs--fetch_page',
    ]);
    expect(value.tools[2]?.description).toBe('Project documentation server.\n\nSearch the docs.');
    expect(value.tools[3]).toEqual({
      type: 'function',
      name: 'mcp__docs--fetch_page',
      description: 'Project documentation server.',
      inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
    });
    expect(value.tools[0]?.strict).toBe(false);
  });

  it('decodes a tool round trip without confusing item ids and call ids', () => {
    const body = readResponsesRequestFixture('codex-tool-round-trip-request.json');
    const input = body.input as Array<Record<string, unknown>>;
    const [reasoning, , shell, search] = input.slice(4);
    const { value, issues } = decodeResponsesRequest(body);
    expect(issues).toEqual([]);
    const assistant = value.messages[4];
    const summaries = (reasoning?.summary as { text: string }[]).map((entry) => entry.text);
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: summaries.join('\n\n'),
          provider: 'openai',
          encryptedContent: reasoning?.encrypted_content,
          summary: summaries,
          itemId: reasoning?.id,
        },
        { type: 'text', text: 'Listing the workspace and checking the docs.' },
        {
          type: 'tool-call',
          toolCallId: shell?.call_id,
          itemId: shell?.id,
          toolName: 'shell_command',
          input: shell?.arguments,
        },
        {
          type: 'tool-call',
          toolCallId: search?.call_id,
          itemId: search?.id,
          toolName: 'mcp__docs--search',
          input: '{"query":"naïve \\"café\\""}',
        },
      ],
    });
    expect(value.messages[5]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool-result',
          toolCallId: shell?.call_id,
          toolName: 'shell_command',
          content: 'total 8\ndrwxr-xr-x 2 dev dev 4096 .\n-rw-r--r-- 1 dev dev   12 README.md\n',
        },
        {
          type: 'tool-result',
          toolCallId: search?.call_id,
          toolName: 'mcp__docs--search',
          content: [
            { type: 'text', text: '1 result: Getting started' },
            {
              type: 'image',
              source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            },
          ],
        },
      ],
    });
  });
});

describe('decodeResponsesRequest: mapped and equivalent fields', () => {
  it('puts instructions first and a string input as one user message', () => {
    const { value, issues } = decodeResponsesRequest({
      model: 'm',
      instructions: 'Be brief.',
      input: 'hi',
    });
    expect(issues).toEqual([]);
    expect(value.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    expect(value.stream).toBe(false);
  });

  it('maps sampling, limits, user, formats and tool choice', () => {
    const { value, issues } = decodeResponsesRequest({
      ...minimal,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 900,
      user: 'end-user-7',
      safety_identifier: 'end-user-7',
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
      },
      tool_choice: { type: 'function', name: 'search', namespace: 'mcp__docs' },
      reasoning: { effort: 'none' },
    });
    expect(issues).toEqual([]);
    expect(value).toMatchObject({
      temperature: 0.3,
      topP: 0.8,
      maxOutputTokens: 900,
      user: 'end-user-7',
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' }, strict: true },
      toolChoice: { type: 'tool', toolName: 'mcp__docs--search' },
      reasoning: { type: 'disabled' },
    });
    expect(
      decodeResponsesRequest({ ...minimal, text: { format: { type: 'json_object' } } }).value
        .responseFormat,
    ).toEqual({
      type: 'json',
    });
  });

  it('accepts the fields whose values change nothing observable', () => {
    const { issues } = decodeResponsesRequest({
      ...minimal,
      store: false,
      previous_response_id: null,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'thread-1',
      prompt_cache_retention: 'in-memory',
      client_metadata: { 'x-codex-installation-id': 'abc' },
      metadata: {},
      service_tier: 'auto',
      truncation: 'disabled',
      background: false,
      top_logprobs: 0,
      stream_options: { include_obfuscation: false },
      text: { verbosity: 'medium', format: { type: 'text' } },
      reasoning: { summary: 'none' },
      input: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          phase: 'final_answer',
          internal_chat_message_metadata_passthrough: { turn_id: 't' },
          content: [{ type: 'output_text', text: 'ok', annotations: [], logprobs: [] }],
        },
        {
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' },
          ],
        },
      ],
    });
    expect(issues).toEqual([]);
  });
});

describe('decodeResponsesRequest: every unrepresentable field is reported by its path', () => {
  const item = (entry: Record<string, unknown>) => ({ model: 'm', input: [entry] });
  const userPart = (part: Record<string, unknown>) => item({ role: 'user', content: [part] });

  it.each<[string, Record<string, unknown>, string]>([
    ['store true', { ...minimal, store: true }, 'store'],
    [
      'previous_response_id',
      { ...minimal, previous_response_id: 'resp_1' },
      'previous_response_id',
    ],
    ['conversation', { ...minimal, conversation: 'conv_1' }, 'conversation'],
    ['an unknown top-level field', { ...minimal, seed: 7 }, 'seed'],
    ['verbosity low', { ...minimal, text: { verbosity: 'low' } }, 'text.verbosity'],
    [
      'another include',
      { ...minimal, include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] },
      'include[1]',
    ],
    ['non-empty metadata', { ...minimal, metadata: { a: '1' } }, 'metadata'],
    ['a service tier', { ...minimal, service_tier: 'priority' }, 'service_tier'],
    ['automatic truncation', { ...minimal, truncation: 'auto' }, 'truncation'],
    ['background', { ...minimal, background: true }, 'background'],
    ['log probabilities', { ...minimal, top_logprobs: 3 }, 'top_logprobs'],
    ['a tool call limit', { ...minimal, max_tool_calls: 2 }, 'max_tool_calls'],
    ['a stored prompt', { ...minimal, prompt: { id: 'pmpt_1' } }, 'prompt'],
    [
      'long cache retention',
      { ...minimal, prompt_cache_retention: '24h' },
      'prompt_cache_retention',
    ],
    [
      'an unknown stream option',
      { ...minimal, stream_options: { chunk_size: 5 } },
      'stream_options.chunk_size',
    ],
    ['two different users', { ...minimal, user: 'a', safety_identifier: 'b' }, 'safety_identifier'],
    ['an unknown effort', { ...minimal, reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    ['an unknown summary', { ...minimal, reasoning: { summary: 'verbose' } }, 'reasoning.summary'],
    [
      'an unknown reasoning field',
      { ...minimal, reasoning: { effort: 'low', budget: 5 } },
      'reasoning.budget',
    ],
    [
      'a format description',
      {
        ...minimal,
        text: { format: { type: 'json_schema', name: 'n', schema: {}, description: 'd' } },
      },
      'text.format.description',
    ],
    ['a grammar format', { ...minimal, text: { format: { type: 'grammar' } } }, 'text.format.type'],
    [
      'an allowed-tools choice',
      { ...minimal, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } },
      'tool_choice',
    ],
    ['a built-in tool choice', { ...minimal, tool_choice: { type: 'web_search' } }, 'tool_choice'],
    ['a custom tool', { ...minimal, tools: [{ type: 'custom', name: 'apply_patch' }] }, 'tools[0]'],
    [
      'a reserved function name',
      { ...minimal, tools: [{ type: 'function', name: 'a--b', parameters: {} }] },
      'tools[0].name',
    ],
    [
      'an unknown tool field',
      { ...minimal, tools: [{ type: 'function', name: 'f', defer_loading: true }] },
      'tools[0].defer_loading',
    ],
    [
      'a custom tool in a namespace',
      {
        ...minimal,
        tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'custom', name: 'x' }] }],
      },
      'tools[0].tools[0]',
    ],
    [
      'a namespace ending in "-"',
      { ...minimal, tools: [{ type: 'namespace', name: 'ns-', tools: [] }] },
      'tools[0].name',
    ],
    [
      'a duplicate tool name',
      {
        ...minimal,
        tools: [
          { type: 'function', name: 'f' },
          { type: 'function', name: 'f' },
        ],
      },
      'tools[1]',
    ],
    ['a non-string instructions', { ...minimal, instructions: 5 }, 'instructions'],
    [
      'a file part',
      userPart({ type: 'input_file', file_id: 'file_1' }),
      'input[0].content[0].type',
    ],
    [
      'an audio part',
      userPart({ type: 'input_audio', input_audio: {} }),
      'input[0].content[0].type',
    ],
    [
      'an image by file id',
      userPart({ type: 'input_image', file_id: 'file_1' }),
      'input[0].content[0].file_id',
    ],
    [
      'a low-detail image',
      userPart({ type: 'input_image', image_url: 'https://x/y.png', detail: 'low' }),
      'input[0].content[0].detail',
    ],
    [
      'an image by ftp URL',
      userPart({ type: 'input_image', image_url: 'ftp://x/y.png' }),
      'input[0].content[0].image_url',
    ],
    [
      'an unknown text part field',
      userPart({ type: 'input_text', text: 't', cache_control: {} }),
      'input[0].content[0].cache_control',
    ],
    [
      'a refusal',
      item({ role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }),
      'input[0].content[0]',
    ],
    [
      'annotations',
      item({
        role: 'assistant',
        content: [{ type: 'output_text', text: 't', annotations: [{ type: 'url_citation' }] }],
      }),
      'input[0].content[0].annotations',
    ],
    [
      'an image in a developer message',
      item({ role: 'developer', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }),
      'input[0].content[0]',
    ],
    ['an unknown item field', item({ role: 'user', content: 'x', name: 'bob' }), 'input[0].name'],
    ['an unknown role', item({ role: 'tool', content: 'x' }), 'input[0].role'],
    ['a compaction item', item({ type: 'compaction', encrypted_content: 'x' }), 'input[0]'],
    ['a compaction trigger', item({ type: 'compaction_trigger' }), 'input[0]'],
    ['an item reference', item({ type: 'item_reference', id: 'msg_1' }), 'input[0]'],
    [
      'a web search call',
      item({ type: 'web_search_call', id: 'ws_1', status: 'completed' }),
      'input[0]',
    ],
    [
      'a custom tool call',
      item({ type: 'custom_tool_call', call_id: 'c', name: 'x', input: 'y' }),
      'input[0]',
    ],
    [
      'a file in a function output',
      item({
        type: 'function_call_output',
        call_id: 'c',
        output: [{ type: 'input_file', file_id: 'f' }],
      }),
      'input[0].output[0]',
    ],
    [
      'a function call with a reserved name',
      item({ type: 'function_call', call_id: 'c', name: 'a--b', arguments: '{}' }),
      'input[0].name',
    ],
    [
      'an altered gateway reasoning token',
      item({ type: 'reasoning', summary: [], encrypted_content: 'sy1.anthropic.not-json' }),
      'input[0].encrypted_content',
    ],
    [
      'raw reasoning beside encrypted reasoning',
      item({
        type: 'reasoning',
        summary: [],
        encrypted_content: 'enc',
        content: [{ type: 'reasoning_text', text: 't' }],
      }),
      'input[0].content',
    ],
  ])('%s', (_name, body, path) => {
    expect(paths(body)).toEqual([path]);
  });

  it('says why compaction and stored state are refused, so they are easy to lift', () => {
    const { issues } = decodeResponsesRequest({
      model: 'm',
      store: true,
      input: [{ type: 'compaction', encrypted_content: 'x' }],
    });
    expect(issues.map((issue) => issue.reason)).toEqual([
      expect.stringContaining('Stored responses are not available on this route yet'),
      expect.stringContaining('made by an OpenAI responses upstream and can only go back to it'),
    ]);
  });
});
