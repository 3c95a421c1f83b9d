import { describe, expect, it } from 'vitest';
import type { CanonicalMessage } from './generation-call.ts';
import { findCurrentTurnStart } from './find-current-turn-start.ts';

const user = (text: string): CanonicalMessage => ({
  role: 'user',
  content: [{ type: 'text', text }],
});
const assistant: CanonicalMessage = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] };
const toolResults: CanonicalMessage = {
  role: 'user',
  content: [{ type: 'tool-result', toolCallId: 'call_1', content: '21C' }],
};

describe('findCurrentTurnStart', () => {
  it('starts after the last user message that says something new', () => {
    expect(findCurrentTurnStart([user('a'), assistant, user('b')])).toBe(3);
    expect(findCurrentTurnStart([user('a'), assistant, user('b'), assistant])).toBe(3);
  });

  it('keeps a tool loop inside the turn in progress', () => {
    const messages = [user('a'), assistant, user('b'), assistant, toolResults, assistant];
    expect(findCurrentTurnStart(messages)).toBe(3);
  });

  it('is 0 when no user message says anything', () => {
    expect(findCurrentTurnStart([assistant, toolResults])).toBe(0);
  });
});
