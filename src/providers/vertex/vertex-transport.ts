import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import type { TextProviderConfig } from '../../config/config-schema.ts';
import { readAnthropicTokenCount } from '../anthropic/convert-to-anthropic-count-tokens-request.ts';
import { readGeminiTokenCount } from '../gemini/gemini-transport.ts';
import {
  UpstreamCredentialError,
  type ProviderTransport,
  type TransportRequest,
  type UpstreamDialect,
} from '../provider-transport.ts';
import {
  adaptVertexAnthropicBody,
  adaptVertexCountTokensBody,
} from './adapt-vertex-anthropic-body.ts';
import {
  buildVertexCountTokensPath,
  buildVertexModelPath,
  vertexPublisherOf,
} from './build-vertex-path.ts';
import { GoogleAccessTokens, GoogleTokenError } from './google-access-tokens.ts';
import { refuseVertexAnthropicCall } from './refuse-vertex-anthropic-call.ts';

/** What Vertex AI's `countTokens` takes of a generateContent body (its CountTokensRequest). */
const geminiCountedFields = ['contents', 'systemInstruction', 'tools'];

/**
 * Google Vertex AI (docs/configuration.md, `vertex`). Claude (`claude-…`) through the Anthropic
 * publisher's `rawPredict` / `streamRawPredict`, which take the Messages body without `model` and
 * answer in the Messages API's own shapes and events, so a message-style client's body and the
 * upstream's events are relayed as they are (docs/decisions/0157). Gemini (`gemini-…`) through
 * Google's publisher's `generateContent` / `streamGenerateContent`, which take the Gemini API's
 * body. Every call carries an OAuth access token of the key's service account
 * (docs/decisions/0156), held per key on this provider's transport.
 */
export function vertexTransport(provider: TextProviderConfig): ProviderTransport {
  // config/cloud-provider-settings.ts refuses a vertex provider without either.
  const location = { project: provider.project ?? '', region: provider.region ?? '' };
  const tokens = new GoogleAccessTokens({ exchangeTimeoutMs: provider.connectTimeoutMs });
  const dialectOf = (upstreamModel: string): UpstreamDialect =>
    vertexPublisherOf(upstreamModel) === 'google' ? 'gemini' : 'anthropic';
  return {
    dialect: dialectOf,
    generationPath: (upstreamModel, dialect, stream) =>
      dialect === 'gemini'
        ? buildVertexModelPath(
            location,
            'google',
            upstreamModel,
            stream ? 'streamGenerateContent' : 'generateContent',
          )
        : buildVertexModelPath(
            location,
            'anthropic',
            upstreamModel,
            stream ? 'streamRawPredict' : 'rawPredict',
          ),
    // The Gemini codec refuses images by URL itself.
    refuseCall: (call, dialect) => (dialect === 'anthropic' ? refuseVertexAnthropicCall(call) : []),
    adaptBody: (body, { dialect }) =>
      dialect === 'anthropic' ? adaptVertexAnthropicBody(body) : body,
    countTokens(upstreamModel, dialect, body) {
      if (dialect === 'anthropic') {
        return {
          path: buildVertexCountTokensPath(location),
          body: adaptVertexCountTokensBody(body, upstreamModel),
          read: readAnthropicTokenCount,
        };
      }
      if (dialect !== 'gemini') return undefined;
      const counted: Record<string, unknown> = {};
      for (const field of geminiCountedFields)
        if (body[field] !== undefined) counted[field] = body[field];
      return {
        path: buildVertexModelPath(location, 'google', upstreamModel, 'countTokens'),
        body: counted,
        read: readGeminiTokenCount,
      };
    },
    credentialRefused(key: UpstreamKey): void {
      if (key.secret !== undefined) tokens.forget(key.secret);
    },
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
