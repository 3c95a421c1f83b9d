import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import type { TokenizerName } from '../config/config-schema.ts';
import { BytePairCounter, loadBytePairCounter, parseTiktokenRanks } from './byte-pair-counter.ts';

/** A rank file in the `.tiktoken` format for the given tokens, ranked in order. */
function rankFile(tokens: (string | number[])[]): Buffer {
  return Buffer.from(
    tokens.map((token, rank) => `${Buffer.from(token).toString('base64')} ${rank}\n`).join(''),
  );
}

const words = /\S+|\s+/gu;

describe('parseTiktokenRanks', () => {
  it('reads each line as a token and its rank', () => {
    const ranks = parseTiktokenRanks(rankFile(['a', 'b', 'ab', 'é', 'abé']));
    const bytes = Buffer.from('xabéab');
    expect(ranks.rank(bytes, 1, 3)).toBe(2);
    expect(ranks.rank(bytes, 3, 5)).toBe(3);
    expect(ranks.rank(bytes, 1, 5)).toBe(4);
    expect(ranks.rank(bytes, 0, 1)).toBe(0x7fffffff);
    expect(ranks.rank(bytes, 5, 7)).toBe(2);
  });

  it('refuses a file whose ranks are not 0, 1, 2… in order, or whose tokens are not base64', () => {
    expect(() => parseTiktokenRanks(Buffer.from('YQ== 0\nYg== 2\n'))).toThrow(/Line 2/);
    expect(() => parseTiktokenRanks(Buffer.from('YQ== 0\nY*== 1\n'))).toThrow(/Line 2.*base64/);
    expect(() => parseTiktokenRanks(Buffer.from('YQ== 0\nYg== 1x\n'))).toThrow(/Line 2/);
    expect(() => parseTiktokenRanks(Buffer.from('YQ== 0\n 1\n'))).toThrow(/Line 2/);
    expect(() => parseTiktokenRanks(Buffer.from('YQ== 0\nYQ== 1\n'))).toThrow(/rank 1 twice/);
  });

  it('reads a last line without its newline', () => {
    const ranks = parseTiktokenRanks(Buffer.from('YQ== 0\nYg== 1'));
    expect(ranks.rank(Buffer.from('b'), 0, 1)).toBe(1);
  });
});

describe('BytePairCounter', () => {
  it('joins the lowest-ranked pair first, until no pair is a token', () => {
    // "abcd": bc (3) joins before ab (4) and cd (5); then a+bc is "abc", not a token, and
    // bc+d is "bcd" (6): a, bcd.
    const counter = new BytePairCounter(
      parseTiktokenRanks(rankFile(['a', 'b', 'c', 'd', 'bc', 'ab', 'cd', 'bcd'])),
      words,
    );
    expect(counter.count('abcd')).toBe(2);
    expect(counter.count('ab')).toBe(1);
    expect(counter.count('dcba')).toBe(4);
    expect(counter.count('bcd abcd')).toBe(1 + 1 + 2);
  });

  it('counts a piece that is a token as one, and multi-byte characters by their bytes', () => {
    const counter = new BytePairCounter(
      parseTiktokenRanks(rankFile([[0xc3], [0xa9], 'x', 'y', 'z', 'xyz', 'é', 'xé'])),
      words,
    );
    expect(counter.count('xyz')).toBe(1);
    expect(counter.count('zyx')).toBe(3);
    // x, é (from its two bytes), then xé: one token.
    expect(counter.count('xé')).toBe(1);
    expect(counter.count('éx')).toBe(2);
  });

  it('grows for a piece longer than its buffers', () => {
    const counter = new BytePairCounter(parseTiktokenRanks(rankFile(['a', 'aa'])), words);
    expect(counter.count('a'.repeat(1_001))).toBe(501);
  });
});

/** A seeded mix of scripts, emoji, marks, control characters and lone surrogates. */
function mixedTexts(count: number): string[] {
  let seed = 20_261_123;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const ranges = [
    [0x20, 0x7e],
    [0x20, 0x7e],
    [0x00, 0x20],
    [0xa0, 0x24f],
    [0x300, 0x36f],
    [0x400, 0x4ff],
    [0x590, 0x6ff],
    [0x900, 0x97f],
    [0x3040, 0x30ff],
    [0x4e00, 0x9fff],
    [0xac00, 0xd7a3],
    [0xd800, 0xdfff],
    [0x1f300, 0x1faff],
  ] as const;
  return Array.from({ length: count }, () => {
    let text = '';
    const length = 1 + Math.floor(next() * 60);
    for (let index = 0; index < length; index++) {
      const [low, high] = ranges[Math.floor(next() * ranges.length)] as readonly [number, number];
      text += String.fromCodePoint(low + Math.floor(next() * (high - low + 1)));
    }
    return text;
  });
}

describe.each<TokenizerName>(['o200k_base', 'cl100k_base'])('%s', (name) => {
  it('counts what gpt-tokenizer counts, with special tokens as text', async () => {
    const counter = await loadBytePairCounter(name);
    const { countTokens } = (await import(`gpt-tokenizer/encoding/${name}`)) as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const texts = [
      readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8'),
      readFileSync(new URL('./byte-pair-counter.ts', import.meta.url), 'utf8'),
      '<|endoftext|> and <|im_start|>user are text here',
      "don't DON'T we'll you're I'M",
      ' '.repeat(300),
      '\r\n\r\n \t \n\n',
      'x'.repeat(3_000),
      '1234567890'.repeat(40),
      '👩‍👩‍👧‍👦 🏳️‍🌈 naïve café 東京都 한국어 Ελληνικά',
      '',
      ...mixedTexts(1_500),
    ];
    const plain = { disallowedSpecial: new Set<string>() };
    const differing = texts.filter((text) => counter.count(text) !== countTokens(text, plain));
    expect(differing).toEqual([]);
    expect(counter.count(texts[0] as string)).toBeGreaterThan(1_000);
  });
});
