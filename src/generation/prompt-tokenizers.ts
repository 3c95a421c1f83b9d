import { LRUCache } from 'lru-cache';

import type { TokenizerName } from '../config/config-schema.ts';
import { loadBytePairCounter } from './byte-pair-counter.ts';
import type { CountText } from './count-call-tokens.ts';

/** Characters of each end of a long text that, with its length, name its place in the cache. */
const endLength = 24;

interface Counted {
  text: string;
  count: number;
}

/**
 * Remembers the counts of the texts of a prompt, most recently used kept, up to `maxCharacters`
 * characters of text in all (the texts are kept to be compared, so that is what the memory
 * holds); a text is counted again only once it has been forgotten. A conversation sends its
 * system prompt, tool definitions and earlier turns again on every turn, and counting costs
 * 0.04–0.1 µs a character on the event loop (10 ms for a 100 KB prompt) plus about 2 µs a call
 * however short the text (docs/performance.md). A long text is looked up by its length and its
 * ends, then compared whole: keyed by the text itself, a Map would hash all of it on every
 * request (each request's text is a new string), about 2 ns a character; the comparison is a
 * memcmp.
 */
export function rememberTextCounts(countText: CountText, maxCharacters: number): CountText {
  const counts = new LRUCache<string, Counted>({
    maxSize: maxCharacters,
    sizeCalculation: (counted) => Math.max(1, counted.text.length),
  });
  return (text) => {
    if (text.length > maxCharacters) return countText(text);
    const key =
      text.length <= 2 * endLength
        ? text
        : `${text.length}:${text.slice(0, endLength)}${text.slice(-endLength)}`;
    const known = counts.get(key);
    if (known !== undefined && known.text === text) return known.count;
    const count = countText(text);
    // Another text with the same key takes the place: it is the one in use.
    counts.set(key, { text, count });
    return count;
  };
}

/** At most this many characters of counted text are remembered per tokenizer (2–4 MB). */
const rememberedCharacters = 2_000_000;

async function loadTokenizer(name: TokenizerName): Promise<CountText> {
  const counter = await loadBytePairCounter(name);
  return rememberTextCounts((text) => counter.count(text), rememberedCharacters);
}

/**
 * The local tokenizers of OpenAI-style deployments, loaded on first use: each encoding's tables
 * cost a few megabytes of memory and a tenth of a second (docs/operations.md), which a gateway
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
