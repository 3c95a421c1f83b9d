import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { TokenizerName } from '../config/config-schema.ts';
import type { CountText } from './count-call-tokens.ts';

export type PromptTokenizers = ReadonlyMap<TokenizerName, CountText>;

/** Special-token text in a prompt (`<|endoftext|>`) is ordinary text to the model: count it so. */
const asPlainText = { disallowedSpecial: new Set<string>() };

async function loadTokenizer(name: TokenizerName): Promise<CountText> {
  // Each encoding's tables cost tens of megabytes: only the ones a deployment uses are loaded.
  const encoding =
    name === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  return (text) => encoding.countTokens(text, asPlainText);
}

/** The tokenizers of the catalog's deployments, loaded once at start-up. */
export async function loadPromptTokenizers(catalog: ModelCatalog): Promise<PromptTokenizers> {
  const names = new Set<TokenizerName>();
  for (const model of catalog.all()) {
    for (const deployment of model.deployments) {
      if (deployment.tokenizer !== undefined) names.add(deployment.tokenizer);
    }
  }
  const loaded = new Map<TokenizerName, CountText>();
  for (const name of names) loaded.set(name, await loadTokenizer(name));
  return loaded;
}
