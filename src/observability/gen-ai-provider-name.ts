/**
 * The OpenTelemetry `gen_ai.provider.name` of a provider kind: the well-known value of a cloud
 * service by its name, else that of the dialect's family, whoever serves it (an
 * OpenAI-compatible server speaks as `openai`).
 */
export function genAiProviderName(providerKind: string): string {
  return (
    cloudProviderNames[providerKind] ?? (providerKind === 'anthropic' ? 'anthropic' : 'openai')
  );
}

const cloudProviderNames: Readonly<Record<string, string>> = {
  'azure-openai': 'azure.ai.openai',
  bedrock: 'aws.bedrock',
  gemini: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
};

/** The bucket boundaries the GenAI semantic conventions recommend for each instrument. */
export const genAiBuckets = {
  tokens: [
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
  ],
  durationSeconds: [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
  ],
  firstTokenSeconds: [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
  ],
};
