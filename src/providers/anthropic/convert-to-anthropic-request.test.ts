import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToAnthropicRequest } from './convert-to-anthropic-request.ts';

const options: ProviderRequestOptions = {
  upstreamModel: 'claude-sonnet-4-6',
  promptCache: 'off',
  defaultMaxOutputTokens: 8192,
};

function call(overrides: Partial<GenerationCall> = {}): GenerationCall {
  return {
    model: 'public-model',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    ...overrides,
  };
}

describe('convertToAnthropicRequest', () => {
  it('sends the upstream model, the default output limit and the stream flag', () => {
    const { value, issues } = convertToAnthropicRequest(call({ stream: true }), options);
    expect(issues).toEqual([]);
    expect(value).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 8192,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
    });
    expect(convertToAnthropicRequest(call({ maxOutputTokens: 77 }), options).value.max_tokens).toBe(
      77,
    );
  });

  it('turns leading system messages into system blocks with their cache hints', () => {
    const { value, issues } = convertToAnthropicRequest(
      call({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'one', cache: { ttl: '1h' } }] },
          { role: 'system', content: [{ type: 'text', text: 'two' }] },
          { role: 'user', content: [{ type: 'text', text: 'hi', cache: {} }] },
        ],
      }),
      options,
    );
    expect(issues).toEqual([]);
    expect(value.system).toEqual([
      { type: 'text', text: 'one', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'two' },
    ]);
    expect(value.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
      },
    ]);
  });

  it('reports a system message inside the conversation', () => {
    const { issues } = convertToAnthropicRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          { role: 'system', content: [{ type: 'text', text: 'late' }] },
        ],
      }),
      options,
    );
    expect(issues.map((issue) => issue.path)).toEqual(['messages[1]']);
  });

  it('merges consecutive messages of one role and skips empty text', () => {
    const { value } = convertToAnthropicRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'tool-call', toolCallId: 'call_1', toolName: 'a', input: '{"x":1}' },
              { type: 'tool-call', toolCallId: 'call_2', toolName: 'b', input: '' },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: 'call_1', content: 'one' }],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call_2',
                content: [{ type: 'text', text: 'two' }],
                isError: true,
              },
            ],
          },
        ],
      }),
      options,
    );
    expect(value.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 'call_2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'one' },
          {
            type: 'tool_result',
            tool_use_id: 'call_2',
            content: [{ type: 'text', text: 'two' }],
            is_error: true,
          },
        ],
      },
    ]);
  });

  it('sends images by base64 and by url', () => {
    const { value } = convertToAnthropicRequest(
      call({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'image',
                source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              },
              { type: 'image', source: { kind: 'url', url: 'https://example.test/a.jpg' } },
            ],
          },
        ],
      }),
      options,
    );
    expect(value.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
          },
          { type: 'image', source: { type: 'url', url: 'https://example.test/a.jpg' } },
        ],
      },
    ]);
  });

  it('returns Anthropic-signed reasoning byte-identical and rejects other reasoning', () => {
    const signature = 'EqQBCkgIBhABGAIiQL7x+/==';
    const { value, issues } = convertToAnthropicRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'thought', signature, provider: 'anthropic' },
              { type: 'reasoning', text: '', redactedData: 'Emw=', provider: 'anthropic' },
              {
                type: 'reasoning',
                text: '',
                provider: 'openai',
                encryptedContent: 'gAAA',
                itemId: 'rs_1',
              },
              { type: 'reasoning', text: 'unsigned chat reasoning' },
              { type: 'reasoning', text: '' },
              { type: 'text', text: 'answer' },
            ],
          },
        ],
      }),
      options,
    );
    expect((value.messages as Array<{ content: unknown[] }>)[1]?.content).toEqual([
      { type: 'thinking', thinking: 'thought', signature },
      { type: 'redacted_thinking', data: 'Emw=' },
      { type: 'text', text: 'answer' },
    ]);
    expect(issues.map((issue) => issue.path)).toEqual([
      'messages[1].content[2]',
      'messages[1].content[3]',
    ]);
  });

  it('leaves out reasoning it cannot carry from finished turns, which Anthropic ignores', () => {
    const unsigned = { type: 'reasoning' as const, text: 'chat reasoning_content' };
    const { value, issues } = convertToAnthropicRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q1' }] },
          { role: 'assistant', content: [unsigned, { type: 'text', text: 'a1' }] },
          { role: 'user', content: [{ type: 'text', text: 'q2' }] },
          {
            role: 'assistant',
            content: [
              unsigned,
              { type: 'tool-call', toolCallId: 't1', toolName: 'f', input: '{}' },
            ],
          },
          { role: 'user', content: [{ type: 'tool-result', toolCallId: 't1', content: 'r' }] },
        ],
      }),
      options,
    );
    expect((value.messages as Array<{ content: unknown[] }>)[1]?.content).toEqual([
      { type: 'text', text: 'a1' },
    ]);
    // In the tool loop of the turn in progress the reasoning would matter: still refused.
    expect(issues).toEqual([
      { path: 'messages[3].content[0]', reason: 'unsigned reasoning cannot be sent to Anthropic' },
    ]);
  });

  it('reports tool arguments that are not a JSON object', () => {
    const { issues } = convertToAnthropicRequest(
      call({
        messages: [
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'a', input: '[1,2' }],
          },
        ],
      }),
      options,
    );
    expect(issues).toEqual([{ path: 'messages[0].content[0].input', reason: expect.any(String) }]);
  });

  it('sends tools with their names unchanged, strict only when asked, and cache hints', () => {
    const longName = `mcp__${'very_long_server_name_'.repeat(4)}__tool.with.dots`;
    const { value } = convertToAnthropicRequest(
      call({
        tools: [
          { type: 'function', name: longName, inputSchema: { properties: {} }, strict: false },
          {
            type: 'function',
            name: 'b',
            description: 'B',
            inputSchema: { type: 'object' },
            strict: true,
            cache: { ttl: '1h' },
          },
        ],
      }),
      options,
    );
    expect(value.tools).toEqual([
      { name: longName, input_schema: { type: 'object', properties: {} } },
      {
        name: 'b',
        description: 'B',
        input_schema: { type: 'object' },
        strict: true,
        cache_control: { type: 'ephemeral', ttl: '1h' },
      },
    ]);
  });

  it.each([
    [{ toolChoice: { type: 'auto' } }, { type: 'auto' }],
    [{ toolChoice: { type: 'required' } }, { type: 'any' }],
    [{ toolChoice: { type: 'none' } }, { type: 'none' }],
    [{ toolChoice: { type: 'tool', toolName: 't' } }, { type: 'tool', name: 't' }],
    [
      { toolChoice: { type: 'required' }, parallelToolCalls: false },
      { type: 'any', disable_parallel_tool_use: true },
    ],
    [{ parallelToolCalls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ parallelToolCalls: true }, undefined],
  ] as const)('maps tool choice %j to %j', (overrides, expected) => {
    const tools = [{ type: 'function' as const, name: 't', inputSchema: { type: 'object' } }];
    const { value } = convertToAnthropicRequest(call({ tools, ...overrides }), options);
    expect(value.tool_choice).toEqual(expected);
  });

  it.each([
    [{ type: 'disabled' }, { thinking: { type: 'disabled' } }],
    [
      { type: 'budget', budgetTokens: 4096 },
      { thinking: { type: 'enabled', budget_tokens: 4096 } },
    ],
    [{ type: 'effort' }, { thinking: { type: 'adaptive' } }],
    [
      { type: 'effort', effort: 'medium', summary: 'auto' },
      { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } },
    ],
  ] as const)('maps reasoning %j', (reasoning, expected) => {
    const { value, issues } = convertToAnthropicRequest(call({ reasoning }), options);
    expect(issues).toEqual([]);
    expect({ thinking: value.thinking, output_config: value.output_config }).toEqual(expected);
  });

  it('reports an effort level Anthropic does not have', () => {
    const { issues } = convertToAnthropicRequest(
      call({ reasoning: { type: 'effort', effort: 'minimal' } }),
      options,
    );
    expect(issues.map((issue) => issue.path)).toEqual(['reasoning.effort']);
  });

  it('sends a JSON schema response format as output_config.format and reports one without a schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const withSchema = convertToAnthropicRequest(
      call({
        responseFormat: { type: 'json', schema, name: 'answer' },
        reasoning: { type: 'effort', effort: 'low' },
      }),
      options,
    );
    expect(withSchema.value.output_config).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema },
    });
    const withoutSchema = convertToAnthropicRequest(
      call({ responseFormat: { type: 'json' } }),
      options,
    );
    expect(withoutSchema.issues.map((issue) => issue.path)).toEqual(['responseFormat']);
  });

  it('maps sampling settings, stop sequences and the user', () => {
    const { value } = convertToAnthropicRequest(
      call({ temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['END'], user: 'u-1' }),
      options,
    );
    expect(value).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
    });
  });

  it('adds the automatic cache marker only when the prompt-cache header allows it', () => {
    const auto = convertToAnthropicRequest(call(), { ...options, promptCache: 'auto' }).value;
    expect(auto.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
      },
    ]);
    const off = convertToAnthropicRequest(call(), options).value;
    expect(JSON.stringify(off)).not.toContain('cache_control');
  });
});
