import { describe, expect, it } from 'vitest';

import { PromptTokenizers, rememberTextCounts } from './prompt-tokenizers.ts';

function countingWords() {
  const counted: string[] = [];
  const countText = (text: string) => {
    counted.push(text);
    return text.split(' ').length;
  };
  return { counted, countText };
}

const long = (seed: string, characters: number) =>
  Array.from({ length: Math.ceil(characters / (seed.length + 1)) }, () => seed)
    .join(' ')
    .slice(0, characters);

describe('rememberTextCounts', () => {
  it('counts a text once while it is remembered', () => {
    const { counted, countText } = countingWords();
    const count = rememberTextCounts(countText, 10_000);
    const system = long('system', 2_000);
    const question = 'a short question';
    const expected = countText(system);
    counted.length = 0;
    expect([count(system), count(question), count(system), count(question)]).toEqual([
      expected,
      3,
      expected,
      3,
    ]);
    expect(counted).toEqual([system, question]);
  });

  it('forgets the least recently used texts beyond its size, and never keeps a larger one', () => {
    const { counted, countText } = countingWords();
    const count = rememberTextCounts(countText, 5_000);
    const [a, b, c] = ['alpha', 'beta', 'gamma'].map((seed) => long(seed, 2_000));
    count(a as string);
    count(b as string);
    count(a as string); // a is now the most recent
    count(c as string); // 6 000 characters: b goes
    counted.length = 0;
    count(a as string);
    count(c as string);
    expect(counted).toEqual([]);
    count(b as string);
    expect(counted).toEqual([b]);
    const huge = long('huge', 6_000);
    count(huge);
    count(huge);
    expect(counted.filter((text) => text === huge)).toHaveLength(2);
  });

  it('tells apart texts of the same length and ends', () => {
    const { counted, countText } = countingWords();
    const count = rememberTextCounts(countText, 10_000);
    const middle = (words: string) => `${'x'.repeat(40)} ${words} ${'y'.repeat(40)}`;
    const [one, two] = [middle('a b c d e f'), middle('abc def ghi')];
    expect(one.length).toBe(two.length);
    expect([count(one), count(two), count(one), count(one)]).toEqual([8, 5, 8, 8]);
    expect(counted).toEqual([one, two, one]);
  });
});

describe('PromptTokenizers', () => {
  it('gives the same counts as the tokenizer itself, the second time from memory', async () => {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const countText = await new PromptTokenizers().load('o200k_base');
    const prompt = long('Keep edits small, run the tests — report what changed. ☕', 20_000);
    const expected = countTokens(prompt, { disallowedSpecial: new Set() });
    expect(countText(prompt)).toBe(expected);
    expect(countText(prompt)).toBe(expected);
    expect(countText('<|endoftext|> is text here')).toBe(
      countTokens('<|endoftext|> is text here', { disallowedSpecial: new Set() }),
    );
  });
});
