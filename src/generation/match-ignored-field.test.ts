import { describe, expect, it } from 'vitest';
import { isIgnoredField } from './match-ignored-field.ts';

const codexBody = {
  model: 'm',
  input: 'hi',
  tools: [
    { type: 'function', name: 'exec_command', parameters: {} },
    { type: 'web_search', external_web_access: false },
    { type: 'custom', name: 'apply_patch' },
  ],
};

describe('isIgnoredField', () => {
  it('matches the exact path and the top-level field', () => {
    const allowed = new Set(['thinking.display', 'context_management']);
    expect(isIgnoredField(allowed, 'thinking.display', {})).toBe(true);
    expect(isIgnoredField(allowed, 'context_management.edits[0]', {})).toBe(true);
    expect(isIgnoredField(allowed, 'thinking.type', {})).toBe(false);
  });

  it('matches a tool type selector at whatever index the tool is', () => {
    const allowed = new Set(['tools[type=web_search]']);
    expect(isIgnoredField(allowed, 'tools[1]', codexBody)).toBe(true);
    expect(isIgnoredField(allowed, 'tools[1].external_web_access', codexBody)).toBe(true);
    expect(isIgnoredField(allowed, 'tools[2]', codexBody)).toBe(false);
    expect(isIgnoredField(allowed, 'tools[0].parameters', codexBody)).toBe(false);
    expect(isIgnoredField(allowed, 'tools[12]', codexBody)).toBe(false);
    expect(isIgnoredField(allowed, 'tools[1]', { tools: 'none' })).toBe(false);
  });

  it('never lets a selector cover fields outside the tool list', () => {
    const allowed = new Set(['tools[type=web_search]']);
    expect(isIgnoredField(allowed, 'tool_choice', codexBody)).toBe(false);
    expect(isIgnoredField(allowed, 'tools', codexBody)).toBe(false);
    expect(isIgnoredField(new Set(['tools[type=custom]']), 'tools[1]', codexBody)).toBe(false);
  });
});
