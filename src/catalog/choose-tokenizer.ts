import type { ProviderConfig, TokenizerName } from '../config/config-schema.ts';

/** OpenAI's model families by the encoding their tokenizer uses (tiktoken's model table). */
const o200kFamilies = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|gpt-oss|codex-)/;
const cl100kFamilies = /^(gpt-4|gpt-3\.5)/;

/**
 * The local tokenizer of an OpenAI-style deployment: the configured one (`none` turns it off),
 * otherwise the encoding of the upstream model's family when its name says it is OpenAI's
 * (`openai/` prefixes of routers and vLLM included). Other models (Llama, Qwen, ...) have
 * tokenizers of their own, which a guess would miscount, so they get none.
 */
export function chooseTokenizer(
  provider: Pick<ProviderConfig, 'kind'>,
  upstreamModel: string,
  configured: TokenizerName | 'none' | undefined,
): TokenizerName | undefined {
  // Claude and Gemini count with tokenizers of their own, which no local encoding matches.
  if (provider.kind === 'anthropic' || provider.kind === 'gemini' || configured === 'none')
    return undefined;
  if (configured !== undefined) return configured;
  const name = upstreamModel.toLowerCase().replace(/^openai\//, '');
  if (o200kFamilies.test(name)) return 'o200k_base';
  if (cl100kFamilies.test(name)) return 'cl100k_base';
  return undefined;
}
