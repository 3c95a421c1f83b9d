import { describe, expect, it } from 'vitest';
import { CallOrigins } from '../../canonical/call-origins.ts';
import type { TranslationIssue } from '../../canonical/generation-call.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';

function decode(messages: unknown[]) {
  const issues: TranslationIssue[] = [];
  const value = decodeChatMessages(messages, issues, new CallOrigins());
  return { value, paths: issues.map((issue) => issue.path) };
}

const userWith = (part: Record<string, unknown>) => [
  { role: 'user', content: [{ type: 'text', text: 'look' }, part] },
];

describe('decodeChatMessages', () => {
  it('turns system and developer messages into canonical system messages in place', () => {
    const { value, paths } = decode([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: 'hi' },
      { role: 'developer', content: 'c' },
    ]);
    expect(paths).toEqual([]);
    expect(value).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'c' }] },
    ]);
  });

  it('maps http(s) image URLs to url sources and data URLs to base64 sources', () => {
    const { value, paths } = decode([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
        ],
      },
    ]);
    expect(paths).toEqual([]);
    expect(value[0]?.content).toEqual([
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/webp', data: 'UklGRg==' } },
    ]);
  });

  it.each([
    [
      { type: 'image_url', image_url: { url: 'https://e.com/a.png', detail: 'high' } },
      'messages[0].content[1].image_url.detail',
    ],
    [
      { type: 'image_url', image_url: { url: 'https://e.com/a.png', detail: 'low' } },
      'messages[0].content[1].image_url.detail',
    ],
    [
      { type: 'image_url', image_url: { url: 'ftp://e.com/a.png' } },
      'messages[0].content[1].image_url.url',
    ],
    [
      { type: 'image_url', image_url: { url: 'data:image/png,%89PNG' } },
      'messages[0].content[1].image_url.url',
    ],
    [
      { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
      'messages[0].content[1]',
    ],
    [{ type: 'file', file: { file_id: 'file-abc' } }, 'messages[0].content[1]'],
    [{ type: 'refusal', refusal: 'no' }, 'messages[0].content[1].type'],
    [{ type: 'text', text: 'x', annotations: [] }, 'messages[0].content[1].annotations'],
    [
      { type: 'text', text: 'x', cache_control: { type: 'persistent' } },
      'messages[0].content[1].cache_control',
    ],
  ])('reports the user content part %j at %s', (part, path) => {
    expect(decode(userWith(part)).paths).toEqual([path]);
  });

  it('maps cache_control on content parts to canonical cache hints', () => {
    const { value, paths } = decode(
      userWith({ type: 'text', text: 'long doc', cache_control: { type: 'ephemeral', ttl: '1h' } }),
    );
    expect(paths).toEqual([]);
    expect(value[0]?.content[1]).toEqual({ type: 'text', text: 'long doc', cache: { ttl: '1h' } });
  });

  it.each(['system', 'developer', 'user', 'assistant', 'tool'])(
    'reports `name` on %s messages',
    (role) => {
      const message = {
        role,
        content: 'x',
        name: 'alice',
        ...(role === 'tool' ? { tool_call_id: 'c' } : {}),
      };
      expect(decode([message]).paths).toEqual(['messages[0].name']);
    },
  );

  it('reports images in system messages', () => {
    expect(
      decode([
        {
          role: 'system',
          content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }],
        },
      ]).paths,
    ).toEqual(['messages[0].content[0].type']);
  });

  it('keeps tool call arguments as the exact JSON text', () => {
    const args = '{ "q" : "caf\\u00e9",\n "n": 1.50 }';
    const { value } = decode([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: args } }],
      },
    ]);
    expect(value[0]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: args }],
    });
  });

  it('merges consecutive tool messages into one user message and starts a new one after', () => {
    const { value } = decode([
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'b', content: '2' },
      { role: 'user', content: 'next' },
      { role: 'tool', tool_call_id: 'c', content: '3' },
    ]);
    expect(value.map((message) => message.content.length)).toEqual([2, 1, 1]);
    expect(value[0]?.content.map((part) => part.type === 'tool-result' && part.toolCallId)).toEqual(
      ['a', 'b'],
    );
  });

  it.each([
    [{ role: 'tool', content: 'x' }, 'messages[0].tool_call_id'],
    [{ role: 'user', content: 'x', tool_call_id: 'c' }, 'messages[0].tool_call_id'],
    [{ role: 'user', content: null }, 'messages[0].content'],
    [{ role: 'assistant', content: 'x', refusal: 'I cannot.' }, 'messages[0].refusal'],
    [
      { role: 'assistant', content: 'x', annotations: [{ type: 'url_citation' }] },
      'messages[0].annotations',
    ],
    [{ role: 'assistant', content: 'x', audio: { id: 'audio_1' } }, 'messages[0].audio'],
    [
      { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
      'messages[0].function_call',
    ],
    [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'g', input: 'x' } }],
      },
      'messages[0].tool_calls[0].type',
    ],
    [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }],
      },
      'messages[0].tool_calls[0].function',
    ],
    [
      { role: 'assistant', content: 'x', reasoning_content: 'a', reasoning: 'b' },
      'messages[0].reasoning',
    ],
    [
      { role: 'assistant', content: 'x', reasoning_details: [{ type: 'reasoning.text' }] },
      'messages[0].reasoning_details',
    ],
  ])('reports %j at %s', (message, path) => {
    expect(decode([message]).paths).toEqual([path]);
  });

  it('accepts the empty fields an SDK copies when it replays an answer', () => {
    const { value, paths } = decode([
      {
        role: 'assistant',
        content: 'ok',
        refusal: null,
        annotations: [],
        audio: null,
        function_call: null,
      },
    ]);
    expect(paths).toEqual([]);
    expect(value[0]?.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('reads `reasoning` as unsigned reasoning when `reasoning_content` is absent', () => {
    const { value } = decode([{ role: 'assistant', content: 'ok', reasoning: 'because' }]);
    expect(value[0]?.content[0]).toEqual({ type: 'reasoning', text: 'because' });
  });
});
