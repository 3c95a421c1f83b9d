import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from './decode-messages-request.ts';

const claudeCodeRequest = JSON.parse(
  readFileSync(
    new URL('../../wire/messages/__fixtures__/claude-code-request.json', import.meta.url),
    'utf8',
  ),
) as Record<string, unknown>;

const minimal = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

function withBlock(block: unknown, role = 'user'): Record<string, unknown> {
  return { ...minimal, messages: [{ role, content: [block] }] };
}

describe('decodeMessagesRequest: a Claude Code body', () => {
  const { value: call, issues } = decodeMessagesRequest(claudeCodeRequest);

  it('reports nothing: its context edit keeps every thinking block (decisions/0011)', () => {
    expect(claudeCodeRequest.context_management).toBeDefined();
    expect(issues).toEqual([]);
  });

  it('keeps system instructions and system messages at their positions', () => {
    expect(call.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'system',
    ]);
    expect(call.messages[0]).toEqual({
      role: 'system',
      content: [
        {
          type: 'text',
          text: 'x-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=sdk-cli',
        },
        {
          type: 'text',
          text: "You are Claude Code, Anthropic's official CLI for Claude.",
          cache: { ttl: '1h' },
        },
      ],
    });
    expect(call.messages[4]).toEqual({
      role: 'system',
      content: [
        {
          type: 'text',
          text: '<system-reminder>The user opened src/main.ts in the IDE.</system-reminder>',
        },
      ],
    });
  });

  it('keeps the thinking signature byte-identical and tool inputs as JSON text', () => {
    const assistant = (
      claudeCodeRequest.messages as Array<{ content: Array<Record<string, unknown>> }>
    )[1];
    expect(call.messages[2]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: "The user wants a listing first. I'll run ls, then read main.ts.",
          signature: assistant?.content[0]?.signature,
          provider: 'anthropic',
        },
        { type: 'text', text: "I'll look at the directory first." },
        {
          type: 'tool-call',
          toolCallId: 'toolu_01Xq7nKfDv4ZbM3n8pWcE2aH',
          toolName: 'Bash',
          input: '{"command":"ls src","description":"List files in src"}',
        },
        {
          type: 'tool-call',
          toolCallId: 'toolu_01Rj2wQe9ZyTn5bGx6mVc8uL',
          toolName: 'Read',
          input: '{"file_path":"/repo/src/main.ts"}',
        },
      ],
    });
  });

  it('decodes tool results with their tool names, error flag and cache hint', () => {
    expect(call.messages[3]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_01Xq7nKfDv4ZbM3n8pWcE2aH',
          toolName: 'Bash',
          content: 'main.ts\ncompose.ts\nconfig',
          isError: false,
        },
        {
          type: 'tool-result',
          toolCallId: 'toolu_01Rj2wQe9ZyTn5bGx6mVc8uL',
          toolName: 'Read',
          content: [{ type: 'text', text: "     1\timport { compose } from './compose.ts';" }],
          cache: {},
        },
      ],
    });
  });

  it('maps tools, reasoning, output limit, user and stream', () => {
    expect(call.tools.map((tool) => [tool.name, tool.cache])).toEqual([
      ['Bash', undefined],
      ['Read', { ttl: '1h' }],
    ]);
    expect(call.tools[0]?.inputSchema).toEqual(
      (claudeCodeRequest.tools as Array<{ input_schema: unknown }>)[0]?.input_schema,
    );
    expect(call.reasoning).toEqual({ type: 'effort', effort: 'high' });
    expect(call.maxOutputTokens).toBe(32000);
    expect(call.user).toBe('user_6f1c0b7e3a_account__session_2b8d54f0-0c0e-4a39-9a0e-1f6f5bb0d8a1');
    expect(call.stream).toBe(true);
    expect(call.model).toBe('claude-sonnet-4-6');
  });
});

describe('decodeMessagesRequest: mapped fields', () => {
  it('maps sampling settings and stop sequences', () => {
    const { value, issues } = decodeMessagesRequest({
      ...minimal,
      temperature: 0.3,
      top_p: 0.8,
      top_k: 20,
      stop_sequences: ['\n\nHuman:'],
    });
    expect(issues).toEqual([]);
    expect(value).toMatchObject({
      temperature: 0.3,
      topP: 0.8,
      topK: 20,
      stopSequences: ['\n\nHuman:'],
      stream: false,
    });
  });

  it.each([
    [{ type: 'auto' }, { toolChoice: { type: 'auto' } }],
    [{ type: 'any' }, { toolChoice: { type: 'required' } }],
    [{ type: 'none' }, { toolChoice: { type: 'none' } }],
    [{ type: 'tool', name: 'Bash' }, { toolChoice: { type: 'tool', toolName: 'Bash' } }],
    [
      { type: 'auto', disable_parallel_tool_use: true },
      { toolChoice: { type: 'auto' }, parallelToolCalls: false },
    ],
    [
      { type: 'any', disable_parallel_tool_use: false },
      { toolChoice: { type: 'required' }, parallelToolCalls: true },
    ],
  ])('maps tool_choice %j', (toolChoice, expected) => {
    const { value, issues } = decodeMessagesRequest({ ...minimal, tool_choice: toolChoice });
    expect(issues).toEqual([]);
    expect({ toolChoice: value.toolChoice, parallelToolCalls: value.parallelToolCalls }).toEqual(
      expected,
    );
  });

  it.each([
    [
      { thinking: { type: 'enabled', budget_tokens: 4096 } },
      { type: 'budget', budgetTokens: 4096 },
    ],
    [{ thinking: { type: 'adaptive' } }, { type: 'effort' }],
    [{ thinking: { type: 'disabled' } }, { type: 'disabled' }],
    [{ output_config: { effort: 'low' } }, { type: 'effort', effort: 'low' }],
    [
      { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } },
      { type: 'effort', effort: 'max' },
    ],
  ])('maps reasoning settings %j', (fields, reasoning) => {
    const { value, issues } = decodeMessagesRequest({ ...minimal, ...fields });
    expect(issues).toEqual([]);
    expect(value.reasoning).toEqual(reasoning);
  });

  it('maps a JSON schema output format', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const { value, issues } = decodeMessagesRequest({
      ...minimal,
      output_config: { format: { type: 'json_schema', schema } },
    });
    expect(issues).toEqual([]);
    expect(value.responseFormat).toEqual({ type: 'json', schema });
  });

  it('decodes images by base64 and url, with cache hints', () => {
    const { value, issues } = decodeMessagesRequest({
      ...minimal,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
              cache_control: { type: 'ephemeral', ttl: '5m' },
            },
            { type: 'image', source: { type: 'url', url: 'https://example.test/a.jpg' } },
          ],
        },
      ],
    });
    expect(issues).toEqual([]);
    expect(value.messages[0]?.content).toEqual([
      {
        type: 'image',
        source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        cache: { ttl: '5m' },
      },
      { type: 'image', source: { kind: 'url', url: 'https://example.test/a.jpg' } },
    ]);
  });

  it('decodes redacted thinking and unsigned thinking', () => {
    const { value, issues } = decodeMessagesRequest({
      ...minimal,
      messages: [
        ...minimal.messages,
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'EmwKAhgB' },
            { type: 'thinking', thinking: 'chat reasoning', signature: '' },
          ],
        },
      ],
    });
    expect(issues).toEqual([]);
    expect(value.messages[1]?.content).toEqual([
      { type: 'reasoning', text: '', redactedData: 'EmwKAhgB', provider: 'anthropic' },
      { type: 'reasoning', text: 'chat reasoning' },
    ]);
  });

  it('accepts replayed blocks whose citations are null or empty', () => {
    const { issues } = decodeMessagesRequest(
      withBlock({ type: 'text', text: 'x', citations: null }, 'assistant'),
    );
    expect(issues).toEqual([]);
    expect(
      decodeMessagesRequest(withBlock({ type: 'text', text: 'x', citations: [] })).issues,
    ).toEqual([]);
  });
});

describe('decodeMessagesRequest: deferred tools (decisions/0030)', () => {
  it('decodes a tool with defer_loading as an ordinary function tool', () => {
    const tool = {
      name: 'NotebookEdit',
      description: 'Edits a notebook cell.',
      input_schema: { type: 'object', properties: { cell: { type: 'string' } } },
      defer_loading: true,
    };
    const { value, issues } = decodeMessagesRequest({
      ...minimal,
      tools: [tool, { ...tool, name: 'Read', defer_loading: false }],
    });
    expect(issues).toEqual([]);
    expect(value.tools).toEqual([
      {
        type: 'function',
        name: 'NotebookEdit',
        description: tool.description,
        inputSchema: tool.input_schema,
      },
      {
        type: 'function',
        name: 'Read',
        description: tool.description,
        inputSchema: tool.input_schema,
      },
    ]);
  });

  it('still refuses the tool_reference blocks of the upstream tool search', () => {
    const { issues } = decodeMessagesRequest(
      withBlock({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'tool_reference', tool_name: 'NotebookEdit' }],
      }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['messages[0].content[0].content[0]']);
  });
});

describe('decodeMessagesRequest: issues name the field', () => {
  it.each([
    ['service_tier', { ...minimal, service_tier: 'auto' }],
    ['container', { ...minimal, container: 'container_1' }],
    [
      'mcp_servers',
      { ...minimal, mcp_servers: [{ type: 'url', url: 'https://example.test', name: 'x' }] },
    ],
    [
      'context_management.edits[0]',
      { ...minimal, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } },
    ],
    [
      'messages[0].content[0].citations',
      withBlock({ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }),
    ],
    [
      'messages[0].content[0]',
      withBlock({
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: 'd' },
      }),
    ],
    [
      'messages[0].content[0]',
      withBlock({ type: 'search_result', source: 's', title: 't', content: [] }),
    ],
    [
      'messages[0].content[0].source.type',
      withBlock({ type: 'image', source: { type: 'file', file_id: 'file_1' } }),
    ],
    [
      'messages[0].content[0].content[0]',
      withBlock({
        type: 'tool_result',
        tool_use_id: 't',
        content: [{ type: 'document', source: {} }],
      }),
    ],
    ['messages[0].content[0]', withBlock({ type: 'thinking', thinking: 'x', signature: 's' })],
    ['messages[0].content[0]', withBlock({ type: 'tool_use', id: 't', name: 'n', input: {} })],
    [
      'messages[0].content[0]',
      withBlock({ type: 'image', source: { type: 'url', url: 'u' } }, 'assistant'),
    ],
    [
      'messages[0].content[0]',
      withBlock({ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }, 'assistant'),
    ],
    [
      'messages[0].content[0].signature',
      withBlock({ type: 'thinking', thinking: 'x', signature: 'sy1.openai.!!' }, 'assistant'),
    ],
    [
      'messages[0].content[0].cache_control.type',
      withBlock({ type: 'text', text: 'x', cache_control: { type: 'persistent' } }),
    ],
    [
      'messages[0].content[0].cache_control.ttl',
      withBlock({ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '24h' } }),
    ],
    ['messages[0].name', { ...minimal, messages: [{ role: 'user', content: 'x', name: 'bob' }] }],
    [
      'messages[0].content[0]',
      { ...minimal, messages: [{ role: 'system', content: [{ type: 'image', source: {} }] }] },
    ],
    ['system[0]', { ...minimal, system: [{ type: 'image', source: {} }] }],
    ['tools[0].type', { ...minimal, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }],
    ['tools[0].type', { ...minimal, tools: [{ type: 'bash_20250124', name: 'bash' }] }],
    [
      'tools[0].input_examples',
      { ...minimal, tools: [{ name: 'x', input_schema: {}, input_examples: [{}] }] },
    ],
    ['tool_choice.type', { ...minimal, tool_choice: { type: 'sometimes' } }],
    ['thinking.type', { ...minimal, thinking: { type: 'deep' } }],
    ['thinking.display', { ...minimal, thinking: { type: 'adaptive', display: 'verbatim' } }],
    [
      'output_config.effort',
      {
        ...minimal,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        output_config: { effort: 'low' },
      },
    ],
    ['output_config.effort', { ...minimal, output_config: { effort: 'extreme' } }],
    ['output_config.format.type', { ...minimal, output_config: { format: { type: 'regex' } } }],
    ['output_config.task_budget', { ...minimal, output_config: { task_budget: 1000 } }],
    ['metadata.session', { ...minimal, metadata: { user_id: 'u', session: 's' } }],
  ])('reports %s', (path, body) => {
    const { issues } = decodeMessagesRequest(body);
    expect(issues.map((issue) => issue.path)).toEqual([path]);
    expect(issues[0]?.reason.length).toBeGreaterThan(10);
  });
});
