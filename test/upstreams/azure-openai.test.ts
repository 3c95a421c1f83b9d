import { expect } from 'vitest';
import { describeUpstreamConformance, scriptedReasoning } from './upstream-conformance.ts';

const key = 'azure-test-key-3f1c';

describeUpstreamConformance('azure-openai (/openai/v1/)', {
  provider: { kind: 'azure-openai', apiKeyEnv: 'AZURE_TEST_KEY' },
  upstreamModel: 'gpt-5-prod',
  env: { AZURE_TEST_KEY: key },
  upstreamKey: key,
  writesCache: false,
  reasoningToken: () => scriptedReasoning.encryptedContent,
  expectGenerationCall(request, surface) {
    expect(request.path).toBe(
      surface === 'chat' ? '/openai/v1/chat/completions' : '/openai/v1/responses',
    );
    expect(request.headers['api-key']).toBe(key);
    expect(request.headers.authorization).toBeUndefined();
    expect((request.body as { model?: string }).model).toBe('gpt-5-prod');
  },
});

describeUpstreamConformance('azure-openai (deployment routes)', {
  provider: {
    kind: 'azure-openai',
    apiKeyEnv: 'AZURE_TEST_KEY',
    apiVersion: '2025-04-01-preview',
    authScheme: 'bearer',
  },
  upstreamModel: 'gpt 5/prod',
  env: { AZURE_TEST_KEY: key },
  upstreamKey: key,
  writesCache: false,
  reasoningToken: () => scriptedReasoning.encryptedContent,
  expectGenerationCall(request, surface) {
    expect(request.path).toBe(
      surface === 'chat'
        ? '/openai/deployments/gpt%205%2Fprod/chat/completions'
        : '/openai/responses',
    );
    expect(request.query['api-version']).toBe('2025-04-01-preview');
    expect(request.headers.authorization).toBe(`Bearer ${key}`);
    expect(request.headers['api-key']).toBeUndefined();
  },
});
