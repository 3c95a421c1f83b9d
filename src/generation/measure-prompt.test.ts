import { describe, expect, it } from 'vitest';

import { byteBound, measurePrompt, tokenizerCount } from './measure-prompt.ts';

const words = (text: string) => text.split(' ').length;

describe('measurePrompt (docs/decisions/0100)', () => {
  const chat = {
    model: 'gpt-4o',
    max_tokens: 8,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  };

  it('counts what the model reads under the chat framing, not the settings', () => {
    // OpenAI's cookbook: 3 priming the reply, 3 a message, its role and its text.
    expect(measurePrompt(chat, tokenizerCount(words), 200_000)).toBe(3 + 3 + 1 + 1);
  });

  it('bounds a prompt by the UTF-8 bytes of its texts, so a CJK prompt is not undercounted', () => {
    const cjk = { messages: [{ role: 'user', content: '漢字'.repeat(100) }] };
    // 600 bytes of text, the role's 4, a message's framing and the prompt's start.
    expect(measurePrompt(cjk, byteBound, 200_000)).toBe(600 + 4 + 8 + 16);
  });

  it('grows with tools, their schemas and the tool-use preamble', () => {
    const tool = {
      name: 'lookup',
      description: 'Looks a word up',
      input_schema: { type: 'object', properties: { word: { type: 'string' } } },
    };
    const without = measurePrompt(chat, byteBound, 200_000);
    const one = measurePrompt({ ...chat, tools: [tool] }, byteBound, 200_000);
    const two = measurePrompt(
      { ...chat, tools: [tool, { ...tool, name: 'define' }] },
      byteBound,
      200_000,
    );
    expect(one - without).toBeGreaterThan(byteBound.toolsPreamble + byteBound.perTool + 40);
    expect(two - one).toBeGreaterThan(byteBound.perTool + 40);
    expect(two - one).toBeLessThan(byteBound.toolsPreamble);
  });

  it('holds an image at a fixed size, whether inline or by URL, and a file by reference at the window', () => {
    const image = (source: unknown) => ({
      messages: [{ role: 'user', content: [{ type: 'image', source }] }],
    });
    const inline = image({ type: 'base64', media_type: 'image/png', data: 'A'.repeat(400_000) });
    const byUrl = image({ type: 'url', url: 'https://example.com/a.png' });
    expect(measurePrompt(inline, byteBound, 200_000)).toBe(
      measurePrompt(byUrl, byteBound, 200_000),
    );
    expect(measurePrompt(byUrl, byteBound, 200_000)).toBeLessThan(byteBound.image + 64);
    const fileById = { input: [{ type: 'input_file', file_id: 'file_123' }] };
    expect(measurePrompt(fileById, byteBound, 128_000)).toBe(128_000);
    const inlineFile = {
      input: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AAAA' }],
    };
    expect(measurePrompt(inlineFile, byteBound, 128_000)).toBeLessThan(100);
  });

  it('never counts more than the context window', () => {
    const long = { messages: [{ role: 'user', content: 'x'.repeat(300_000) }] };
    expect(measurePrompt(long, byteBound, 200_000)).toBe(200_000);
  });

  it('leaves thinking signatures out: they are opaque, not text the model reads', () => {
    const signed = {
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking: 'hm', signature: 'S'.repeat(5_000) }],
        },
      ],
    };
    expect(measurePrompt(signed, byteBound, 200_000)).toBeLessThan(100);
  });
});
