/**
 * The OpenTelemetry `gen_ai.provider.name` of a provider kind: the well-known value of the
 * dialect's family, whoever serves it (an OpenAI-compatible server speaks as `openai`).
 */
export function genAiProviderName(providerKind: string): string {
  return providerKind === 'anthropic' ? 'anthropic' : 'openai';
}
