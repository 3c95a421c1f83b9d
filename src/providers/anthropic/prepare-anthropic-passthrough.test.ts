import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countAnthropicCacheBreakpoints } from './add-anthropic-cache-markers.ts';
import { prepareAnthropicPassthrough } from './prepare-anthropic-passthrough.ts';

const claudeCodeRequest = JSON.parse(
  readFileSync(
    new URL('../../wire/messages/__fixtures__/claude-code-request.json', import.meta.url),
    'utf8',
  ),
) as Record<string, unknown>;

describe('prepareAnthropicPassthrough', () => {
  it('replaces only the model and keeps every other field, known or not, with the header off', () => {
    const body = prepareAnthropicPassthrough(claudeCodeRequest, {
      upstreamModel: 'claude-sonnet-4-6-20260101',
      promptCache: 'off',
    });
    expect(body).toEqual({ ...claudeCodeRequest, model: 'claude-sonnet-4-6-20260101' });
    expect(body.context_management).toBe(claudeCodeRequest.context_management);
  });

  it('adds one marker after the client markers when the header is auto, keeping the 1h marker', () => {
    const body = prepareAnthropicPassthrough(claudeCodeRequest, {
      upstreamModel: 'u',
      promptCache: 'auto',
    });
    expect(countAnthropicCacheBreakpoints(claudeCodeRequest)).toBe(3);
    expect(countAnthropicCacheBreakpoints(body)).toBe(4);
    expect(body.system).toEqual(claudeCodeRequest.system);
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)).toEqual({
      role: 'system',
      content: [
        {
          type: 'text',
          text: '<system-reminder>The user opened src/main.ts in the IDE.</system-reminder>',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
  });

  it('leaves the client body untouched', () => {
    const snapshot = structuredClone(claudeCodeRequest);
    prepareAnthropicPassthrough(claudeCodeRequest, { upstreamModel: 'u', promptCache: 'auto' });
    expect(claudeCodeRequest).toEqual(snapshot);
  });
});
