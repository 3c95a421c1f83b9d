import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { convertToAnthropicCountTokensRequest } from './convert-to-anthropic-count-tokens-request.ts';

describe('convertToAnthropicCountTokensRequest', () => {
  it('keeps only the fields the count-tokens endpoint accepts and adds no cache marker', () => {
    const call: GenerationCall = {
      model: 'public',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'sys' }] },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      tools: [{ type: 'function', name: 't', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'required' },
      reasoning: { type: 'budget', budgetTokens: 2048 },
      maxOutputTokens: 100,
      temperature: 0.5,
      user: 'u',
      stream: true,
    };
    const { value, issues } = convertToAnthropicCountTokensRequest(call, {
      upstreamModel: 'claude-x',
    });
    expect(issues).toEqual([]);
    expect(value).toEqual({
      model: 'claude-x',
      system: [{ type: 'text', text: 'sys' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 't', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
  });

  it('reports what the messages cannot carry', () => {
    const call: GenerationCall = {
      model: 'public',
      messages: [
        { role: 'assistant', content: [{ type: 'reasoning', text: '', provider: 'openai' }] },
      ],
      tools: [],
      stream: false,
    };
    expect(convertToAnthropicCountTokensRequest(call, { upstreamModel: 'x' }).issues).toHaveLength(
      1,
    );
  });
});
