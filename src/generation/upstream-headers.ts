import type { ProviderConfig } from '../config/config-schema.ts';

type Headers = Record<string, string | string[] | undefined>;

const defaultAnthropicVersion = '2023-06-01';

/**
 * Claude Code's identity and session headers (docs/clients.md): forwarded to a message-style
 * upstream with the body they describe. `x-stainless-*` stay behind: they describe the client's own
 * HTTP transport (retry count, timeout), not the gateway's request.
 */
const forwardedClientHeaders = ['x-app', 'x-claude-code-session-id'];

/**
 * The client's betas towards Vertex AI, without Anthropic's own sign-in beta (`oauth-…`): the call
 * is made with the gateway's access token, and Vertex AI refuses a beta it does not know.
 */
function vertexBetas(header: string | undefined): string {
  if (header === undefined) return '';
  return header
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '' && !beta.startsWith('oauth-'))
    .join(',');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Headers for an upstream call: the provider's credential in its own scheme, the configured
 * extra headers, and — towards a message-style upstream — the client's version and beta headers
 * (docs/clients.md: Claude Code's `anthropic-beta` list must reach the upstream) and its identity
 * and session headers.
 */
export function buildUpstreamHeaders(
  provider: ProviderConfig,
  apiKey: string | undefined,
  clientHeaders: Headers,
  options: { sameDialect: boolean; stream: boolean },
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    ...provider.headers,
  };
  if (provider.kind === 'anthropic') {
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    headers['anthropic-version'] =
      (options.sameDialect ? single(clientHeaders['anthropic-version']) : undefined) ??
      defaultAnthropicVersion;
    const beta = single(clientHeaders['anthropic-beta']);
    if (options.sameDialect && beta !== undefined) headers['anthropic-beta'] = beta;
    for (const name of options.sameDialect ? forwardedClientHeaders : []) {
      const value = single(clientHeaders[name]);
      if (value !== undefined) headers[name] = value;
    }
  } else if (provider.kind === 'vertex') {
    // Claude on Vertex AI takes its version in the body; the betas a body's fields need still
    // come as the header (docs/translation.md, "Claude on Google Vertex AI").
    const beta = options.sameDialect ? vertexBetas(single(clientHeaders['anthropic-beta'])) : '';
    if (beta !== '') headers['anthropic-beta'] = beta;
  } else if (apiKey !== undefined) {
    headers.authorization = `Bearer ${apiKey}`;
  }
  return headers;
}
