import { expect } from 'vitest';
import { fakeGeminiSignature } from '../fake-upstream/wire-gemini.ts';
import { describeUpstreamConformance } from './upstream-conformance.ts';

const key = 'gemini-test-key-8d2e';

describeUpstreamConformance('gemini', {
  provider: { kind: 'gemini', apiKeyEnv: 'GEMINI_TEST_KEY' },
  upstreamModel: 'gemini-2.5-pro',
  env: { GEMINI_TEST_KEY: key },
  upstreamKey: key,
  writesCache: false,
  // The fake signs the part its Gemini 3 counterpart would: the answer's last one.
  reasoningToken: () => fakeGeminiSignature({ text: 'Sunny.' }),
  expectGenerationCall(request, _surface, stream) {
    expect(request.path).toBe(
      `/v1beta/models/gemini-2.5-pro:${stream ? 'streamGenerateContent' : 'generateContent'}`,
    );
    expect(request.query).toEqual(stream ? { alt: 'sse' } : {});
    expect(request.headers['x-goog-api-key']).toBe(key);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.rawBody).not.toContain(key);
  },
});
