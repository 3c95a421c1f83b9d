import type { TokenizerName } from '../config/config-schema.ts';
import type { CountText } from './count-call-tokens.ts';

/** Special-token text in a prompt (`<|endoftext|>`) is ordinary text to the model: count it so. */
const asPlainText = { disallowedSpecial: new Set<string>() };

async function loadTokenizer(name: TokenizerName): Promise<CountText> {
  const encoding =
    name === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  return (text) => encoding.countTokens(text, asPlainText);
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
