import { describe, expect, it } from 'vitest';
import type { TextProviderConfig } from '../../config/config-schema.ts';
import { UpstreamCredentialError, type TransportRequest } from '../provider-transport.ts';
import { bedrockTransport } from './bedrock-transport.ts';

const provider = {
  kind: 'bedrock',
  region: 'us-west-2',
  baseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com',
} as TextProviderConfig;

function request(): TransportRequest {
  return { path: '/model/x/converse', headers: { 'content-type': 'application/json' }, body: '{}' };
}

describe('bedrockTransport', () => {
  const transport = bedrockTransport(provider, {});

  it('speaks the Messages API to Claude ids and profiles, Converse to the rest, whatever the client', () => {
    for (const model of [
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      'arn:aws:bedrock:us-west-2:123456789012:inference-profile/global.anthropic.claude-opus-4-1-20250805-v1:0',
    ]) {
      expect(transport.dialect(model, 'openai-chat')).toBe('anthropic');
      expect(transport.dialect(model, 'anthropic')).toBe('anthropic');
    }
    expect(transport.dialect('amazon.nova-pro-v1:0', 'anthropic')).toBe('bedrock-converse');
    expect(transport.dialect('meta.llama3-70b-instruct-v1:0', 'openai-responses')).toBe(
      'bedrock-converse',
    );
  });

  it('names the model in the path as one escaped segment, the operation by dialect and stream', () => {
    const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    expect(transport.generationPath(claude, 'anthropic', false)).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
    );
    expect(transport.generationPath(claude, 'anthropic', true)).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    );
    expect(transport.generationPath('amazon.nova-pro-v1:0', 'bedrock-converse', true)).toBe(
      '/model/amazon.nova-pro-v1%3A0/converse-stream',
    );
    expect(
      transport.generationPath(
        'arn:aws:bedrock:us-west-2:1:inference-profile/x',
        'bedrock-converse',
        false,
      ),
    ).toBe('/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A1%3Ainference-profile%2Fx/converse');
  });

  it('adapts a Messages body for InvokeModel without touching the original', () => {
    const body = { model: 'm', stream: true, max_tokens: 10, messages: [] };
    const adapted = transport.adaptBody?.(body, {
      dialect: 'anthropic',
      stream: true,
      clientHeaders: {
        'anthropic-beta': ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
      },
    });
    expect(adapted).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 10,
      messages: [],
      anthropic_beta: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
    });
    expect(body).toEqual({ model: 'm', stream: true, max_tokens: 10, messages: [] });
    const converse = { messages: [] };
    expect(
      transport.adaptBody?.(converse, {
        dialect: 'bedrock-converse',
        stream: false,
        clientHeaders: {},
      }),
    ).toBe(converse);
  });

  it('signs with the key pair of the environment it was given', async () => {
    const signed = request();
    const withKeys = bedrockTransport(provider, {
      AWS_ACCESS_KEY_ID: 'AKIDENVIRONMENT',
      AWS_SECRET_ACCESS_KEY: 'secret-of-the-environment',
      AWS_SESSION_TOKEN: 'session-of-the-environment',
    });
    await withKeys.authorize(signed, { id: 'none', env: undefined, secret: undefined });
    expect(signed.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDENVIRONMENT\/\d{8}\/us-west-2\/bedrock\/aws4_request, /,
    );
    expect(signed.headers['x-amz-security-token']).toBe('session-of-the-environment');
    expect(signed.headers.host).toBe('bedrock-runtime.us-west-2.amazonaws.com');
    expect(JSON.stringify(signed.headers)).not.toContain('secret-of-the-environment');
  });

  it('sends an API key as a Bearer token, with the content headers of the operation', async () => {
    const key = { id: 'k1', env: 'BEDROCK_KEY', secret: 'bedrock-key' };
    const headersFor = async (path: string) => {
      const sent = { ...request(), path };
      sent.headers.accept = 'text/event-stream';
      await transport.authorize(sent, key);
      return sent.headers;
    };
    const base = { 'content-type': 'application/json', authorization: 'Bearer bedrock-key' };
    expect(await headersFor('/model/x/converse-stream')).toEqual(base);
    expect(await headersFor('/model/x/converse')).toEqual(base);
    expect(await headersFor('/model/x/invoke')).toEqual({ ...base, accept: 'application/json' });
    expect(await headersFor('/model/x/invoke-with-response-stream')).toEqual({
      ...base,
      'x-amzn-bedrock-accept': 'application/json',
    });
  });

  it('fails with a credential error, not a crash, when the environment has no credentials', async () => {
    const missing = bedrockTransport(provider, {
      AWS_PROFILE: 'switchyard-test-profile-that-does-not-exist',
    });
    await expect(
      missing.authorize(request(), { id: 'none', env: undefined, secret: undefined }),
    ).rejects.toBeInstanceOf(UpstreamCredentialError);
  }, 15_000);
});
