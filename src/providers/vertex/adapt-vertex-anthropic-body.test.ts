import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  adaptVertexAnthropicBody,
  adaptVertexCountTokensBody,
} from './adapt-vertex-anthropic-body.ts';

const request = JSON.parse(
  readFileSync(new URL('./__fixtures__/messages-request.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('adaptVertexAnthropicBody', () => {
  it('moves the model out and the version in, leaving every other field as it is', () => {
    const { model: _model, ...rest } = request;
    expect(adaptVertexAnthropicBody(request)).toStrictEqual({
      anthropic_version: 'vertex-2023-10-16',
      ...rest,
    });
    expect(request.model).toBe('claude-sonnet-4-5');
  });

  it("replaces a version the body carried with Vertex AI's", () => {
    expect(adaptVertexAnthropicBody({ anthropic_version: '2023-06-01', max_tokens: 1 })).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 1,
    });
  });

  it('keeps the model in a count body, as the upstream names it', () => {
    const counted = adaptVertexCountTokensBody(
      { model: 'claude-sonnet-4-5', messages: request.messages },
      'claude-sonnet-4-5@20250929',
    );
    expect(counted).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      messages: request.messages,
      model: 'claude-sonnet-4-5@20250929',
    });
  });
});
