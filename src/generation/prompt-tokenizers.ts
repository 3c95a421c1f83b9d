import { LRUCache } from 'lru-cache';

import type { TokenizerName } from '../config/config-schema.ts';
import type { CountText } from './count-call-tokens.ts';

/** Special-token text in a prompt (`<|endoftext|>`) is ordinary text to the model: count it so. */
const asPlainText = { disallowedSpecial: new Set<string>() };

/**
 * Texts shorter than this are counted every time: a few microseconds each. Longer ones (a system
 * prompt, a tool's schema, an earlier turn) are what a conversation sends again on every turn,
 * and counting them costs about 0.1 µs a character (10 ms for a 100 KB prompt, on the event
 * loop), docs/performance.md.
 */
const rememberedFromLength = 512;

/**
 * Remembers the counts of long texts, most recently used kept, up to `maxCharacters` characters
 * of text in all (the texts are the keys, so that is what the memory holds); a text is counted
 * again only once it has been forgotten.
 */
export function rememberLongTextCounts(countText: CountText, maxCharacters: number): CountText {
  const counts = new LRUCache<string, number>({
    maxSize: maxCharacters,
    sizeCalculation: (_count, text) => text.length,
  });
  return (text) => {
    if (text.length < rememberedFromLength || text.length > maxCharacters) return countText(text);
    const known = counts.get(text);
    if (known !== undefined) return known;
    const counted = countText(text);
    counts.set(text, counted);
    return counted;
  };
}

/** At most this many characters of counted text are remembered per tokenizer (2–4 MB). */
const rememberedCharacters = 2_000_000;

async function loadTokenizer(name: TokenizerName): Promise<CountText> {
  const encoding =
    name === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  return rememberLongTextCounts(
    (text) => encoding.countTokens(text, asPlainText),
    rememberedCharacters,
  );
}

/**
 * The local tokenizers of OpenAI-style deployments, loaded on first use: each encoding's tables
 * cost tens of megabytes of memory and a third of a second (docs/operations.md), which a gateway
 * that never counts such a prompt should not pay at start-up.
 */
export class PromptTokenizers {
  readonly #loaded = new Map<TokenizerName, CountText>();
  readonly #loading = new Map<TokenizerName, Promise<CountText>>();

  /**
   * The tokenizer when it is loaded; otherwise starts loading it and answers undefined, so a
   * stream's start uses an estimate instead of waiting (docs/decisions/0003).
   */
  ready(name: TokenizerName): CountText | undefined {
    const loaded = this.#loaded.get(name);
    if (loaded === undefined) this.load(name).catch(() => this.#loading.delete(name));
    return loaded;
  }

  /** Waits for the tokenizer: count_tokens answers an exact count or none. */
  load(name: TokenizerName): Promise<CountText> {
    let loading = this.#loading.get(name);
    if (loading === undefined) {
      loading = loadTokenizer(name).then((countText) => {
        this.#loaded.set(name, countText);
        return countText;
      });
      this.#loading.set(name, loading);
    }
    return loading;
  }
}
