import { describe, expect, it } from 'vitest';
import { buildSummaryRequest } from './build-summary-request.ts';
import { compactionInstruction } from './compaction-instruction.ts';

const codexTurn = {
  model: 'm',
  instructions: 'You are a coding agent.',
  input: [{ role: 'user', content: 'fix the bug' }, { type: 'compaction_trigger' }],
  tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  reasoning: { effort: 'medium' },
  text: { verbosity: 'low', format: { type: 'json_schema', name: 'x', schema: {} } },
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'thread-1',
  store: true,
  stream: true,
};

describe('buildSummaryRequest', () => {
  const history = [{ role: 'user', content: 'fix the bug' }];
  const request = buildSummaryRequest(codexTurn, history);

  it('keeps what makes the prefix of earlier turns: instructions, tools, reasoning, cache key', () => {
    expect(request).toMatchObject({
      model: 'm',
      instructions: codexTurn.instructions,
      tools: codexTurn.tools,
      parallel_tool_calls: true,
      reasoning: codexTurn.reasoning,
      include: codexTurn.include,
      prompt_cache_key: 'thread-1',
    });
  });

  it('asks for the summary as the last user turn, after the history', () => {
    expect(request.input).toEqual([
      ...history,
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: compactionInstruction }],
      },
    ]);
  });

  it('answers in text, read whole, stored nowhere, in no client format', () => {
    expect(request.tool_choice).toBe('none');
    expect(request.stream).toBe(false);
    expect(request.store).toBe(false);
    expect(request).not.toHaveProperty('text');
  });

  it('sets no tool choice when there are no tools', () => {
    const { tools: _tools, ...withoutTools } = codexTurn;
    expect(buildSummaryRequest(withoutTools, history)).not.toHaveProperty('tool_choice');
  });
});
