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
    for (const preferred of ['anthropic', 'openai-chat', 'openai-responses'] as const)
      expect(transport.dialect(model, preferred)).toBe('anthropic');
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
    expect(transport.anthropicCountRequest?.(model, { model: 'public-id', messages: [] })).toEqual({
      path: `${base}/count-tokens:rawPredict`,
      body: { anthropic_version: 'vertex-2023-10-16', model, messages: [] },
    });
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
