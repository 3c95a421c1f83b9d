import { describe, expect, it } from 'vitest';

import {
  buildVertexCountTokensPath,
  buildVertexModelPath,
  vertexPublisherOf,
} from './build-vertex-path.ts';

const location = { project: 'my-proj', region: 'us-east5' };

describe('Vertex AI paths', () => {
  it("puts Claude's model and method in the path", () => {
    expect(
      buildVertexModelPath(location, 'anthropic', 'claude-sonnet-4-5@20250929', 'streamRawPredict'),
    ).toBe(
      '/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    );
    expect(buildVertexCountTokensPath(location)).toBe(
      '/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict',
    );
  });

  it("asks Gemini's stream for server-sent events", () => {
    expect(
      buildVertexModelPath(location, 'google', 'gemini-2.5-pro', 'streamGenerateContent'),
    ).toBe(
      '/v1/projects/my-proj/locations/us-east5/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(buildVertexModelPath(location, 'google', 'gemini-2.5-pro', 'generateContent')).toMatch(
      /models\/gemini-2\.5-pro:generateContent$/,
    );
  });

  it('escapes what would leave its path segment', () => {
    expect(
      buildVertexModelPath(
        { project: 'a/b', region: 'x?y' },
        'anthropic',
        'claude-x#1',
        'rawPredict',
      ),
    ).toBe(
      '/v1/projects/a%2Fb/locations/x%3Fy/publishers/anthropic/models/claude-x%231:rawPredict',
    );
  });

  it('tells the publisher from the model name', () => {
    expect(vertexPublisherOf('claude-haiku-4-5@20251001')).toBe('anthropic');
    expect(vertexPublisherOf('gemini-2.5-flash')).toBe('google');
    expect(vertexPublisherOf('llama-3.1-405b')).toBeUndefined();
  });
});
