import { describe, expect, it } from 'vitest';
import { genAiProviderName } from './gen-ai-provider-name.ts';

describe('genAiProviderName', () => {
  it('names a cloud service by its well-known value, other kinds by their dialect’s family', () => {
    expect(genAiProviderName('gemini')).toBe('gcp.gemini');
    expect(genAiProviderName('azure-openai')).toBe('azure.ai.openai');
    expect(genAiProviderName('vertex')).toBe('gcp.vertex_ai');
    expect(genAiProviderName('bedrock')).toBe('aws.bedrock');
    expect(genAiProviderName('anthropic')).toBe('anthropic');
    expect(genAiProviderName('openai-chat')).toBe('openai');
  });
});
