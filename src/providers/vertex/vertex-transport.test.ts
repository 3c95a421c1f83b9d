import { describe, expect, it } from 'vitest';

import type { TextProviderConfig } from '../../config/config-schema.ts';
import { UpstreamCredentialError } from '../provider-transport.ts';
import { vertexTransport } from './vertex-transport.ts';

const provider = {
  kind: 'vertex',
  baseUrl: 'https://us-east5-aiplatform.googleapis.com',
  project: 'my-proj',
  region: 'us-east5',
  connectTimeoutMs: 1_000,
  firstByteTimeoutMs: 1_000,
  idleTimeoutMs: 1_000,
  maxConnections: 1,
} as TextProviderConfig;

const model = 'claude-opus-4-1@20250805';
const base = `/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models`;

describe('vertexTransport', () => {
  const transport = vertexTransport(provider);

  it('speaks the Messages dialect to every client, at rawPredict or streamRawPredict', () => {
    for (const preferred of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
      expect(transport.dialect(model, preferred)).toBe('anthropic');
      expect(transport.dialect('gemini-2.5-pro', preferred)).toBe('gemini');
    }
    expect(transport.generationPath(model, 'anthropic', false)).toBe(`${base}/${model}:rawPredict`);
    expect(transport.generationPath(model, 'anthropic', true)).toBe(
      `${base}/${model}:streamRawPredict`,
    );
  });

  it('adapts generation and count bodies', () => {
    const body = { model: 'public-id', max_tokens: 5, stream: true, messages: [] };
    expect(
      transport.adaptBody?.(body, { dialect: 'anthropic', stream: true, clientHeaders: {} }),
    ).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 5,
      stream: true,
      messages: [],
    });
    const count = transport.countTokens?.(model, 'anthropic', { model: 'public-id', messages: [] });
    expect(count).toMatchObject({
      path: `${base}/count-tokens:rawPredict`,
      body: { anthropic_version: 'vertex-2023-10-16', model, messages: [] },
    });
    expect(count?.read({ input_tokens: 12 })).toBe(12);
  });

  it("speaks Gemini's body to Google's publisher, and counts what its countTokens takes", () => {
    const google =
      '/v1/projects/my-proj/locations/us-east5/publishers/google/models/gemini-2.5-pro';
    expect(transport.generationPath('gemini-2.5-pro', 'gemini', false)).toBe(
      `${google}:generateContent`,
    );
    expect(transport.generationPath('gemini-2.5-pro', 'gemini', true)).toBe(
      `${google}:streamGenerateContent?alt=sse`,
    );
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 10 },
    };
    expect(
      transport.adaptBody?.(body, { dialect: 'gemini', stream: false, clientHeaders: {} }),
    ).toBe(body);
    const count = transport.countTokens?.('gemini-2.5-pro', 'gemini', body);
    expect(count).toMatchObject({
      path: `${google}:countTokens`,
      body: { contents: body.contents, systemInstruction: body.systemInstruction },
    });
    expect(count?.body).not.toHaveProperty('generationConfig');
    expect(count?.read({ totalTokens: 7 })).toBe(7);
  });

  it('refuses to send a call without a key, naming the variable', async () => {
    const request = { path: '/x', headers: {}, body: '{}' };
    const refused = transport.authorize(request, {
      id: 'unset-GOOGLE_APPLICATION_CREDENTIALS',
      env: 'GOOGLE_APPLICATION_CREDENTIALS',
      secret: undefined,
    });
    await expect(refused).rejects.toThrow(UpstreamCredentialError);
    await expect(refused).rejects.toThrow(
      'No service account key: the environment variable GOOGLE_APPLICATION_CREDENTIALS is unset.',
    );
    expect(request.headers).toEqual({});
  });

  it('turns an unusable key into a credential error without its content', async () => {
    const refused = transport.authorize(
      { path: '/x', headers: {}, body: '{}' },
      { id: 'k1', env: 'VERTEX_KEY', secret: '{"private_key":"-----BEGIN PRIVATE KEY-----abc"}' },
    );
    await expect(refused).rejects.toThrow(
      new UpstreamCredentialError('The service account key lacks client_email or private_key.'),
    );
  });
});
