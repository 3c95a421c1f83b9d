import { describe, expect, it } from 'vitest';
import { toOpenAIUserId } from './openai-user-id.ts';

describe('toOpenAIUserId', () => {
  it('keeps an id of up to 64 characters unchanged', () => {
    expect(toOpenAIUserId('user-42')).toBe('user-42');
    expect(toOpenAIUserId('u'.repeat(64))).toBe('u'.repeat(64));
  });

  it('replaces a longer id, such as Claude Code metadata.user_id, by a stable 64-character hash', () => {
    const claudeCodeUser = JSON.stringify({
      device_id: 'c2ea5d173ffb704c03b2f92aeed20a6dadfa72512d85c78cf542168ea060b476',
      account_uuid: '',
      session_id: '758782e5-61f6-49e2-a793-18f163c6cec1',
    });
    const hashed = toOpenAIUserId(claudeCodeUser);
    expect(hashed).toMatch(/^sy-[0-9a-f]{61}$/);
    expect(toOpenAIUserId(claudeCodeUser)).toBe(hashed);
    expect(toOpenAIUserId(`${claudeCodeUser} `)).not.toBe(hashed);
  });
});
