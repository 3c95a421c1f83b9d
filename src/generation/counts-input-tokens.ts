import type { ProviderConfig } from '../config/config-schema.ts';

/**
 * Whether an OpenAI-style provider answers `POST /v1/responses/input_tokens`. Every
 * openai-responses server is assumed to (it is part of that API); of the chat-completions
 * servers only OpenAI's own API has it, since vLLM, llama.cpp, Ollama and most proxies do not.
 * The operator overrides either default with `countInputTokens`.
 */
export function countsInputTokens(provider: ProviderConfig): boolean {
  if (provider.kind === 'anthropic') return false;
  if (provider.countInputTokens !== undefined) return provider.countInputTokens;
  if (provider.kind === 'openai-responses') return true;
  try {
    return new URL(provider.baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
