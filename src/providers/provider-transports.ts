import type { TextProviderConfig } from '../config/config-schema.ts';
import { azureOpenAITransport } from './azure-openai/azure-openai-transport.ts';
import { bedrockTransport } from './bedrock/bedrock-transport.ts';
import { geminiTransport } from './gemini/gemini-transport.ts';
import type { ProviderTransport } from './provider-transport.ts';
import { setBearer, staticKeyTransport } from './shared/static-key-transport.ts';
import { vertexTransport } from './vertex/vertex-transport.ts';

/** Builds the transport of one configured provider; cheap, and no call leaves before a request. */
type TransportFactory = (provider: TextProviderConfig, env: NodeJS.ProcessEnv) => ProviderTransport;

const anthropic = staticKeyTransport('anthropic', '/v1/messages', (headers, secret) => {
  headers['x-api-key'] = secret;
});
const openAIChat = staticKeyTransport('openai-chat', '/v1/chat/completions', setBearer);
const openAIResponses = staticKeyTransport('openai-responses', '/v1/responses', setBearer);

/** One entry per provider kind text models can be deployed on (docs/configuration.md). */
export const providerTransports: Record<TextProviderConfig['kind'], TransportFactory> = {
  anthropic: () => anthropic,
  'openai-chat': () => openAIChat,
  'openai-responses': () => openAIResponses,
  'azure-openai': azureOpenAITransport,
  gemini: geminiTransport,
  vertex: vertexTransport,
  bedrock: bedrockTransport,
};
