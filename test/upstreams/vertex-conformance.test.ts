import { afterAll, beforeAll, expect } from 'vitest';

import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { fakeGeminiSignature } from '../fake-upstream/wire-gemini.ts';
import { createFakeVertex } from '../fake-upstream/wire-vertex.ts';
import { describeUpstreamConformance, scriptedReasoning } from './upstream-conformance.ts';

const vertex = createFakeVertex();
const account = 'conformance@fake-project.iam.gserviceaccount.com';
const upstreamModel = 'claude-haiku-4-5@20251001';

// The key's token_uri must name a running endpoint before the suite's gateway reads the key: a
// fake of its own issues the tokens, which the suite's fake (the same wire) then accepts.
let tokenEndpoint: FakeUpstream;
let key = '';
beforeAll(async () => {
  tokenEndpoint = await startFakeUpstream({ wires: [vertex.wire] });
  key = vertex.tokens.serviceAccountKey(tokenEndpoint.url, account);
});
afterAll(() => tokenEndpoint.close());

describeUpstreamConformance('vertex (Claude)', {
  provider: {
    kind: 'vertex',
    project: 'fake-project',
    region: 'europe-west1',
    apiKeyEnv: 'VERTEX_CONFORMANCE_KEY',
  },
  upstreamModel,
  get env() {
    return { VERTEX_CONFORMANCE_KEY: key };
  },
  fake: { wires: [vertex.wire] },
  writesCache: true,
  // Every client's deployment speaks the Messages dialect, which signs thinking.
  reasoningToken: () => scriptedReasoning.signature,
  expectGenerationCall(request, _surface, stream) {
    expect(request.path).toBe(
      `/v1/projects/fake-project/locations/europe-west1/publishers/anthropic/models/${upstreamModel}:${stream ? 'streamRawPredict' : 'rawPredict'}`,
    );
    expect(request.key).toBe(account);
    expect(request.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
    expect(request.body).not.toHaveProperty('model');
  },
});

describeUpstreamConformance('vertex (Gemini)', {
  provider: {
    kind: 'vertex',
    project: 'fake-project',
    region: 'global',
    apiKeyEnv: 'VERTEX_CONFORMANCE_KEY',
  },
  upstreamModel: 'gemini-2.5-pro',
  get env() {
    return { VERTEX_CONFORMANCE_KEY: key };
  },
  fake: { wires: [vertex.wire] },
  writesCache: false,
  // As on the Gemini API: the fake signs the answer's last part.
  reasoningToken: () => fakeGeminiSignature({ text: 'Sunny.' }),
  expectGenerationCall(request, _surface, stream) {
    expect(request.path).toBe(
      `/v1/projects/fake-project/locations/global/publishers/google/models/gemini-2.5-pro:${stream ? 'streamGenerateContent' : 'generateContent'}`,
    );
    expect(request.query).toEqual(stream ? { alt: 'sse' } : {});
    expect(request.key).toBe(account);
    expect(request.headers['x-goog-api-key']).toBeUndefined();
    expect(request.body).not.toHaveProperty('model');
  },
});
