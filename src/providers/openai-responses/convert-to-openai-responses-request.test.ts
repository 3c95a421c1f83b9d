import { describe, expect, it } from 'vitest';
import type { GenerationCall, ReasoningConfig } from '../../canonical/generation-call.ts';
import { convertToOpenAIResponsesRequest } from './convert-to-openai-responses-request.ts';
import { effortForBudget } from './map-openai-responses-reasoning.ts';
import { toOpenAIToolName } from '../shared/openai-tool-names.ts';

const options = { upstreamModel: 'gpt-5.1-codex' };
const base: GenerationCall = { model: 'public-model', messages: [], tools: [], stream: true };
const encode = (call: Partial<GenerationCall>) =>
  convertToOpenAIResponsesRequest({ ...base, ...call }, options);

const longName = 'mcp__workspace_tools__search_repository_contents_with_filters_and_globs.v2';
const encrypted =
  'gAAAAABpUz3kR8vQ2mXn0Lw9cT4yHs6JfB1eK7pZ3aV5uN8iG2oD4rE6tY0wQ9xC1bM3lF5hS7jA9kU2g==';

const toolRoundTrip: GenerationCall = {
  ...base,
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are Codex.\n' }] },
    {
      role: 'system',
      content: [
        { type: 'text', text: 'AGENTS.md' },
        { type: 'text', text: 'rules', cache: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'List files' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'A\n\nB',
          provider: 'openai',
          itemId: 'rs_01',
          encryptedContent: encrypted,
          summary: ['A', 'B'],
        },
        { type: 'text', text: 'Running ls.' },
        {
          type: 'tool-call',
          toolCallId: 'call_A',
          itemId: 'fc_A',
          toolName: 'shell',
          input: '{"command": ["ls"] }',
        },
        { type: 'tool-call', toolCallId: 'toolu_B', toolName: longName, input: '{}' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: 'call_A', content: 'a.txt\n', isError: true },
        {
          type: 'tool-result',
          toolCallId: 'toolu_B',
          content: [
            { type: 'text', text: 'found' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/x.png' } },
          ],
        },
        { type: 'text', text: 'continue' },
      ],
    },
  ],
  tools: [
    {
      type: 'function',
      name: 'shell',
      inputSchema: { type: 'object', properties: {} },
      strict: true,
    },
    {
      type: 'function',
      name: longName,
      description: 'Search.',
      inputSchema: { type: 'object' },
      cache: { ttl: '1h' },
    },
  ],
  toolChoice: { type: 'tool', toolName: longName },
};

describe('convertToOpenAIResponsesRequest', () => {
  it('encodes a tool round trip item by item, keeping ids, call ids, arguments and reasoning exact', () => {
    const { value, issues } = convertToOpenAIResponsesRequest(toolRoundTrip, options);
    expect(issues).toEqual([]);
    expect(value).toMatchSnapshot();
    expect(value.instructions).toBe('You are Codex.\n');
    const input = value.input as Record<string, unknown>[];
    expect(input.find((item) => item.type === 'reasoning')).toEqual({
      type: 'reasoning',
      id: 'rs_01',
      summary: [
        { type: 'summary_text', text: 'A' },
        { type: 'summary_text', text: 'B' },
      ],
      encrypted_content: encrypted,
    });
    const calls = input.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([
      {
        type: 'function_call',
        id: 'fc_A',
        call_id: 'call_A',
        name: 'shell',
        arguments: '{"command": ["ls"] }',
      },
      {
        type: 'function_call',
        // It follows rs_01 without an id of its own: one is derived from the reasoning item's.
        id: 'fc_01_1',
        call_id: 'toolu_B',
        name: toOpenAIToolName(longName),
        arguments: '{}',
      },
    ]);
    expect(
      input.filter((item) => item.type === 'function_call_output').map((item) => item.call_id),
    ).toEqual(['call_A', 'toolu_B']);
    expect(input.at(-1)).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'continue' }],
    });
  });

  it('always sends store false and asks for encrypted reasoning only when reasoning is on', () => {
    expect(encode({}).value).toMatchObject({ store: false });
    expect(encode({}).value.include).toBeUndefined();
    expect(encode({ reasoning: { type: 'disabled' } }).value).toMatchObject({
      reasoning: { effort: 'none' },
    });
    expect(encode({ reasoning: { type: 'disabled' } }).value.include).toBeUndefined();
    const cases: Array<[ReasoningConfig, unknown]> = [
      [{ type: 'budget', budgetTokens: 4000 }, { effort: 'low' }],
      [{ type: 'budget', budgetTokens: 10000 }, { effort: 'medium' }],
      [{ type: 'budget', budgetTokens: 31999 }, { effort: 'high' }],
      [
        { type: 'effort', effort: 'max', summary: 'detailed' },
        { effort: 'xhigh', summary: 'detailed' },
      ],
      [{ type: 'effort', effort: 'minimal' }, { effort: 'minimal' }],
    ];
    for (const [reasoning, expected] of cases) {
      const { value } = encode({ reasoning });
      expect(value.reasoning).toEqual(expected);
      expect(value.include).toEqual(['reasoning.encrypted_content']);
    }
    expect(encode({ reasoning: { type: 'effort' } }).value.reasoning).toBeUndefined();
    expect(effortForBudget(4096)).toBe('low');
    expect(effortForBudget(4097)).toBe('medium');
    expect(effortForBudget(16385)).toBe('high');
  });

  it('reports reasoning of another family and unsigned reasoning by their path', () => {
    const { issues } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thought', signature: 'sig', provider: 'anthropic' },
            { type: 'text', text: 'answer' },
            { type: 'reasoning', text: 'plain' },
          ],
        },
      ],
    });
    expect(issues.map((issue) => issue.path)).toEqual([
      'messages[1].content[0]',
      'messages[1].content[2]',
    ]);
  });

  it('leaves out reasoning it cannot carry from finished turns, which OpenAI discards', () => {
    const { issues, value } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q1' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'chat reasoning_content' },
            { type: 'text', text: 'a1' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'current turn' }] },
      ],
    });
    expect(value.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q1' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a1' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q2' }] },
    ]);
    expect(issues.map((issue) => issue.path)).toEqual(['messages[3].content[0]']);
  });

  it('gives function calls that lost their id an fc_ id derived from their reasoning item', () => {
    const reasoning = {
      type: 'reasoning' as const,
      text: '',
      provider: 'openai' as const,
      itemId: 'rs_0abc',
      encryptedContent: encrypted,
      summary: [],
    };
    const toolCall = (id: string) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 'shell',
      input: '{}',
    });
    const { value } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [reasoning, toolCall('toolu_1'), toolCall('toolu_2')] },
        { role: 'assistant', content: [toolCall('toolu_3')] },
      ],
    });
    const input = value.input as Array<Record<string, unknown>>;
    const calls = input.filter((item) => item.type === 'function_call');
    expect(calls.map((item) => [item.id, item.call_id])).toEqual([
      ['fc_0abc', 'toolu_1'],
      ['fc_0abc_1', 'toolu_2'],
      // Another assistant message, with no reasoning of its own.
      [undefined, 'toolu_3'],
    ]);
  });

  it('reports top-k, stop sequences and a too small output limit', () => {
    const { issues, value } = encode({ topK: 40, stopSequences: ['END'], maxOutputTokens: 1 });
    expect(issues.map((issue) => issue.path)).toEqual(['topK', 'stopSequences', 'maxOutputTokens']);
    expect(encode({ stopSequences: [] }).issues).toEqual([]);
    expect(value.max_output_tokens).toBe(1);
  });

  it('maps sampling, tool choice, response formats and parallel tool calls', () => {
    const { value } = encode({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 800,
      parallelToolCalls: false,
      toolChoice: { type: 'required' },
      responseFormat: { type: 'json', schema: { type: 'object' }, strict: true },
    });
    expect(value).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 800,
      parallel_tool_calls: false,
      tool_choice: 'required',
      text: {
        format: { type: 'json_schema', name: 'response', schema: { type: 'object' }, strict: true },
      },
    });
    expect(encode({ responseFormat: { type: 'json' } }).value.text).toEqual({
      format: { type: 'json_object' },
    });
    expect(encode({ responseFormat: { type: 'text' } }).value.text).toEqual({
      format: { type: 'text' },
    });
  });

  it('sends function tools with an explicit strict flag and shortened names', () => {
    const { value } = convertToOpenAIResponsesRequest(toolRoundTrip, options);
    expect(value.tools).toEqual([
      {
        type: 'function',
        name: 'shell',
        parameters: { type: 'object', properties: {} },
        strict: true,
      },
      {
        type: 'function',
        name: toOpenAIToolName(longName),
        description: 'Search.',
        parameters: { type: 'object' },
        strict: false,
      },
    ]);
    expect(value.tool_choice).toEqual({
      type: 'function',
      name: toOpenAIToolName(longName),
    });
    expect(toOpenAIToolName(longName)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('passes a short user id and replaces a long one by a stable hash', () => {
    expect(encode({ user: 'user-42' }).value.user).toBe('user-42');
    const long = `user_${'a'.repeat(64)}_account_x_session_y`;
    const hashed = encode({ user: long }).value.user as string;
    expect(hashed).toHaveLength(64);
    expect(hashed).not.toBe(long.slice(0, 64));
    expect(encode({ user: long }).value.user).toBe(hashed);
  });

  it('sends every system message after the first, and a multi-part first one, as developer messages', () => {
    const { value } = encode({
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    });
    expect(value.instructions).toBeUndefined();
    expect(value.input).toEqual([
      {
        type: 'message',
        role: 'developer',
        content: [
          { type: 'input_text', text: 'a' },
          { type: 'input_text', text: 'b' },
        ],
      },
    ]);
  });
});
