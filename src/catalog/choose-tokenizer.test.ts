import { describe, expect, it } from 'vitest';
import { chooseTokenizer } from './choose-tokenizer.ts';

const chat = { kind: 'openai-chat' } as const;

describe('chooseTokenizer', () => {
  it.each([
    ['gpt-4o-mini', 'o200k_base'],
    ['gpt-4.1', 'o200k_base'],
    ['gpt-5-codex', 'o200k_base'],
    ['o4-mini', 'o200k_base'],
    ['openai/gpt-oss-120b', 'o200k_base'],
    ['gpt-4-0613', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['meta-llama/Llama-3.1-8B-Instruct', undefined],
    ['Qwen/Qwen3-8B', undefined],
  ])('chooses by the family of %s', (upstreamModel, expected) => {
    expect(chooseTokenizer(chat, upstreamModel, undefined)).toBe(expected);
  });

  it('takes the configured encoding, and none when switched off', () => {
    expect(chooseTokenizer(chat, 'house-model', 'cl100k_base')).toBe('cl100k_base');
    expect(chooseTokenizer(chat, 'gpt-4o', 'none')).toBeUndefined();
  });

  it('gives an anthropic upstream none: it counts its own prompts', () => {
    expect(chooseTokenizer({ kind: 'anthropic' }, 'gpt-4o', undefined)).toBeUndefined();
  });
});
