import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../config/config-schema.ts';
import { buildUpstreamHeaders } from './upstream-headers.ts';

function provider(kind: ProviderConfig['kind']): ProviderConfig {
  return {
    kind,
    baseUrl: 'https://upstream.test',
    connectTimeoutMs: 1,
    firstByteTimeoutMs: 1,
    idleTimeoutMs: 1,
    maxConnections: 1,
  };
}

/** The headers Claude Code sends besides its credential (docs/clients.md). */
const claudeCodeHeaders = {
  'x-api-key': 'sy_client_token',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27',
  'x-app': 'cli',
  'x-claude-code-session-id': 'a7933b65-ffbf-4379-b2bc-cf1013787c00',
  'x-stainless-retry-count': '0',
  'x-stainless-timeout': '600',
};

describe('buildUpstreamHeaders', () => {
  it('forwards Claude Code version, beta, app and session headers to a message-style upstream', () => {
    const headers = buildUpstreamHeaders(provider('anthropic'), 'sk-upstream', claudeCodeHeaders, {
      sameDialect: true,
      stream: true,
    });
    expect(headers).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-api-key': 'sk-upstream',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27',
      'x-app': 'cli',
      'x-claude-code-session-id': 'a7933b65-ffbf-4379-b2bc-cf1013787c00',
    });
  });

  it('sends none of the client headers across dialects', () => {
    const toAnthropic = buildUpstreamHeaders(provider('anthropic'), 'sk-up', claudeCodeHeaders, {
      sameDialect: false,
      stream: false,
    });
    expect(Object.keys(toAnthropic).sort()).toEqual([
      'accept',
      'anthropic-version',
      'content-type',
      'x-api-key',
    ]);
    const toChat = buildUpstreamHeaders(provider('openai-chat'), 'sk-up', claudeCodeHeaders, {
      sameDialect: false,
      stream: false,
    });
    expect(toChat).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer sk-up',
    });
  });

  it('sends Vertex AI the betas only, without the sign-in beta and without a version header', () => {
    const headers = buildUpstreamHeaders(
      provider('vertex'),
      undefined,
      {
        ...claudeCodeHeaders,
        'anthropic-beta': 'oauth-2025-04-20, claude-code-20250219,effort-2025-11-24',
      },
      { sameDialect: true, stream: true },
    );
    expect(headers).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-beta': 'claude-code-20250219,effort-2025-11-24',
    });
    const translated = buildUpstreamHeaders(provider('vertex'), undefined, claudeCodeHeaders, {
      sameDialect: false,
      stream: false,
    });
    expect(translated).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    const signInOnly = buildUpstreamHeaders(
      provider('vertex'),
      undefined,
      { 'anthropic-beta': 'oauth-2025-04-20' },
      { sameDialect: true, stream: false },
    );
    expect(signInOnly['anthropic-beta']).toBeUndefined();
  });
});
