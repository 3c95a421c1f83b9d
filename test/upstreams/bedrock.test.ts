import { expect } from 'vitest';
import { fakeThinkingSignature } from '../fake-upstream/render-anthropic-reply.ts';
import { describeUpstreamConformance, scriptedReasoning } from './upstream-conformance.ts';

const credentials = { accessKeyId: 'AKIDCONFORMANCE', secretAccessKey: 'conformance-secret' };
const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

// Claude on Bedrock, every call signed with SigV4 from the AWS environment the gateway is given;
// the fake checks each signature. Converse models are driven in bedrock-answers.test.ts: their
// reasoning settings differ per family, so a client's reasoning request is refused there.
describeUpstreamConformance('bedrock (Claude through InvokeModel, SigV4)', {
  provider: { kind: 'bedrock', region: 'us-east-1' },
  upstreamModel: claude,
  env: {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  },
  fake: { bedrock: { credentials: [credentials] } },
  writesCache: true,
  reasoningToken: () =>
    scriptedReasoning.signature ?? fakeThinkingSignature(scriptedReasoning.text),
  expectGenerationCall(request, _surface, stream) {
    expect(request.path).toBe(
      `/model/${encodeURIComponent(claude)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    );
    expect(request.key).toBe(credentials.accessKeyId);
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDCONFORMANCE\//);
    expect(request.rawBody).not.toContain(credentials.secretAccessKey);
    const body = request.body as Record<string, unknown>;
    expect(body.anthropic_version).toBe('bedrock-2023-05-31');
    expect(body).not.toHaveProperty('model');
    expect(body).not.toHaveProperty('stream');
  },
});
