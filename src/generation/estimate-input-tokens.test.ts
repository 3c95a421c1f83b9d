import { describe, expect, it } from 'vitest';

import { estimateInputTokens } from './estimate-input-tokens.ts';

describe('estimateInputTokens (an upper bound of the prompt)', () => {
  const text = { messages: [{ role: 'user', content: '漢字'.repeat(100) }] };

  it('holds at least one token per byte of the body plus the provider framing', () => {
    // 600 UTF-8 bytes of CJK text: bytes ÷ 3 would hold 200, fewer than a tokeniser may count.
    expect(estimateInputTokens(text, 620, 200_000)).toBe(620 + 1_024);
  });

  it('never holds more than the context window', () => {
    expect(estimateInputTokens(text, 5_000_000, 200_000)).toBe(200_000);
  });

  it('holds the whole context window for media by URL or file id, not for inline data', () => {
    const byUrl = {
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
        },
      ],
    };
    const byFileId = { input: [{ type: 'input_file', file_id: 'file_123' }] };
    const inline = { input: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] };
    expect(estimateInputTokens(byUrl, 200, 128_000)).toBe(128_000);
    expect(estimateInputTokens(byFileId, 200, 128_000)).toBe(128_000);
    expect(estimateInputTokens(inline, 200, 128_000)).toBe(200 + 1_024);
  });
});
