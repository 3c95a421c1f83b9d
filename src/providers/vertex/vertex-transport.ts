import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import type { TextProviderConfig } from '../../config/config-schema.ts';
import {
  UpstreamCredentialError,
  type ProviderTransport,
  type TransportRequest,
} from '../provider-transport.ts';
import {
  adaptVertexAnthropicBody,
  adaptVertexCountTokensBody,
} from './adapt-vertex-anthropic-body.ts';
import { buildVertexCountTokensPath, buildVertexModelPath } from './build-vertex-path.ts';
import { GoogleAccessTokens, GoogleTokenError } from './google-access-tokens.ts';

/**
 * Google Vertex AI (docs/configuration.md, `vertex`): Claude through the Anthropic publisher's
 * `rawPredict` / `streamRawPredict`, which take the Messages body without `model` and answer in
 * the Messages API's own shapes and events, so a message-style client's body and the upstream's
 * events are relayed as they are. Every call carries an OAuth access token of the key's service
 * account (docs/decisions/0156), held per key on this provider's transport.
 */
export function vertexTransport(provider: TextProviderConfig): ProviderTransport {
  // config/cloud-provider-settings.ts refuses a vertex provider without either.
  const location = { project: provider.project ?? '', region: provider.region ?? '' };
  const tokens = new GoogleAccessTokens({ exchangeTimeoutMs: provider.connectTimeoutMs });
  return {
    dialect: () => 'anthropic',
    generationPath: (upstreamModel, _dialect, stream) =>
      buildVertexModelPath(
        location,
        'anthropic',
        upstreamModel,
        stream ? 'streamRawPredict' : 'rawPredict',
      ),
    adaptBody: (body) => adaptVertexAnthropicBody(body),
    anthropicCountRequest: (upstreamModel, body) => ({
      path: buildVertexCountTokensPath(location),
      body: adaptVertexCountTokensBody(body, upstreamModel),
    }),
    async authorize(request: TransportRequest, key: UpstreamKey): Promise<void> {
      if (key.secret === undefined) {
        throw new UpstreamCredentialError(
          `No service account key: the environment variable ${key.env ?? 'GOOGLE_APPLICATION_CREDENTIALS'} is unset.`,
        );
      }
      try {
        request.headers.authorization = `Bearer ${await tokens.token(key.secret)}`;
      } catch (error) {
        if (error instanceof GoogleTokenError) throw new UpstreamCredentialError(error.message);
        throw error;
      }
    },
  };
}
