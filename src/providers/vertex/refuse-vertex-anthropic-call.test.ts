import { describe, expect, it } from 'vitest';

import type { GenerationCall } from '../../canonical/generation-call.ts';
import { refuseVertexAnthropicCall } from './refuse-vertex-anthropic-call.ts';

const byUrl = {
  type: 'image',
  source: { kind: 'url', url: 'https://example.test/a.png' },
} as const;
const inline = {
  type: 'image',
  source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
} as const;

function call(messages: GenerationCall['messages']): GenerationCall {
  return { model: 'm', messages, tools: [] } as unknown as GenerationCall;
}

describe('refuseVertexAnthropicCall', () => {
  it('names every image by URL, in user messages and tool results', () => {
    const issues = refuseVertexAnthropicCall(
      call([
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Look' }, byUrl, inline] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'shot', input: {} }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              content: [{ type: 'text', text: 'see' }, byUrl],
            },
          ],
        },
      ] as unknown as GenerationCall['messages']),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'messages[1].content[1]',
      'messages[3].content[0].content[1]',
    ]);
    expect(issues[0]?.reason).toBe('Claude on Vertex AI takes images inline (base64), not by URL');
  });

  it('refuses nothing of inline images and text', () => {
    expect(
      refuseVertexAnthropicCall(
        call([
          { role: 'user', content: [inline, { type: 'text', text: 'hi' }] },
        ] as unknown as GenerationCall['messages']),
      ),
    ).toEqual([]);
  });
});
