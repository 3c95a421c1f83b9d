import { describe, expect, it } from 'vitest';
import type { TranslationIssue } from '../../canonical/generation-call.ts';
import { decodeMessagesContextManagement } from './decode-messages-context-management.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';

function pathsOf(value: unknown): string[] {
  const issues: TranslationIssue[] = [];
  decodeMessagesContextManagement(value, issues);
  return issues.map((issue) => issue.path);
}

const keepAll = { type: 'clear_thinking_20251015', keep: 'all' };

describe('decodeMessagesContextManagement', () => {
  it('accepts edits that keep every thinking block, as Claude Code sends them', () => {
    expect(pathsOf({ edits: [keepAll] })).toEqual([]);
    expect(pathsOf({ edits: [] })).toEqual([]);
    expect(pathsOf({})).toEqual([]);
  });

  it('reports each edit that clears content, by index', () => {
    const clearTools = { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens' } };
    const keepTwo = { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } };
    expect(pathsOf({ edits: [keepAll, clearTools, keepTwo] })).toEqual([
      'context_management.edits[1]',
      'context_management.edits[2]',
    ]);
  });

  it('reports other keys and malformed values', () => {
    expect(pathsOf({ edits: [keepAll], budget: 1 })).toEqual(['context_management.budget']);
    expect(pathsOf({ edits: keepAll })).toEqual(['context_management.edits']);
    expect(pathsOf('clear')).toEqual(['context_management']);
  });

  it('lets an operator allow the field by its top-level name', () => {
    const body = {
      model: 'm',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    };
    const [issue] = decodeMessagesRequest(body).issues;
    expect(issue?.path.split(/[.[]/)[0]).toBe('context_management');
  });
});
