import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import type { TextProviderConfig } from '../../config/config-schema.ts';
import {
  UpstreamCredentialError,
  type ProviderTransport,
  type TransportRequest,
  type UpstreamDialect,
} from '../provider-transport.ts';
import { adaptBedrockAnthropicBody } from './adapt-bedrock-anthropic-body.ts';
import {
  bedrockConverseCountTokensBody,
  bedrockCountTokensPath,
  readBedrockInputTokens,
} from './convert-to-bedrock-count-tokens-request.ts';
import {
  createBedrockSigner,
  signBedrockRequest,
  type AwsCredentialProvider,
  type BedrockSigner,
} from './sign-bedrock-request.ts';
import { readBedrockEventBatches } from './read-bedrock-event-stream.ts';

/**
 * Claude on Bedrock speaks the Messages API through InvokeModel; every other model Converse.
 * A model id, an inference profile (`us.anthropic.…`) or its ARN names its family.
 */
export function bedrockDialect(upstreamModel: string): UpstreamDialect {
  return upstreamModel.includes('anthropic.') ? 'anthropic' : 'bedrock-converse';
}

/** The operation's path, the model id escaped as one segment (`:` as `%3A`, `/` as `%2F`). */
export function bedrockPath(upstreamModel: string, operation: string): string {
  return `/model/${encodeURIComponent(upstreamModel)}/${operation}`;
}

/**
 * The AWS environment's credentials: the variables given to the gateway when they hold a key
 * pair, else the rest of the Node.js provider chain (`AWS_PROFILE` and the shared files, SSO, web
 * identity, container and instance roles), which memoizes what it finds and fetches temporary
 * credentials again before they expire. The chain's package is loaded on the first call that needs
 * it: a gateway given a key pair, or no Bedrock provider, never holds it (docs/decisions/0177).
 */
function environmentCredentials(env: NodeJS.ProcessEnv): AwsCredentialProvider {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) {
    const sessionToken = env.AWS_SESSION_TOKEN;
    const credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
    return () => Promise.resolve(credentials);
  }
  let chain: Promise<AwsCredentialProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then(({ defaultProvider }) =>
      defaultProvider(env.AWS_PROFILE ? { profile: env.AWS_PROFILE } : {}),
    );
    return (await chain)();
  };
}

/**
 * The content headers each operation takes, as the AWS SDK sends them: InvokeModel names the
 * model's answer type in `accept`, InvokeModelWithResponseStream in `x-amzn-bedrock-accept`, and
 * the Converse operations neither; an SSE `accept` means nothing to an event-stream operation.
 */
function setOperationHeaders(request: TransportRequest): void {
  const operation = request.path.slice(request.path.lastIndexOf('/') + 1);
  delete request.headers.accept;
  if (operation === 'invoke') request.headers.accept = 'application/json';
  if (operation === 'invoke-with-response-stream')
    request.headers['x-amzn-bedrock-accept'] = 'application/json';
}

/**
 * Amazon Bedrock Runtime (docs/configuration.md): InvokeModel for Claude, relaying a messages
 * client's body and Bedrock's events as they are; Converse for other models. A Bedrock API key
 * (`apiKeyEnv`) is sent as a Bearer token; without one the request is signed with SigV4 using the
 * AWS environment's credentials, looked up on the first call.
 */
export function bedrockTransport(
  provider: TextProviderConfig,
  env: NodeJS.ProcessEnv,
): ProviderTransport {
  const region = provider.region ?? '';
  const origin = new URL(provider.baseUrl);
  // Made on the first signed call: a provider with API keys never looks for AWS credentials.
  let signer: BedrockSigner | undefined;
  return {
    dialect: (upstreamModel) => bedrockDialect(upstreamModel),
    generationPath(upstreamModel, dialect, stream) {
      if (dialect === 'anthropic')
        return bedrockPath(upstreamModel, stream ? 'invoke-with-response-stream' : 'invoke');
      return bedrockPath(upstreamModel, stream ? 'converse-stream' : 'converse');
    },
    adaptBody: (body, { dialect, clientHeaders }) =>
      dialect === 'anthropic' ? adaptBedrockAnthropicBody(body, clientHeaders) : body,
    async authorize(request: TransportRequest, key: UpstreamKey) {
      setOperationHeaders(request);
      if (key.secret !== undefined) {
        request.headers.authorization = `Bearer ${key.secret}`;
        return;
      }
      signer ??= createBedrockSigner(region, environmentCredentials(env));
      try {
        await signBedrockRequest(request, { origin, signer });
      } catch (error) {
        // The chain's message names where it looked, never a secret.
        throw new UpstreamCredentialError(
          `no AWS credentials to sign the Bedrock request with: ${(error as Error).message}`,
        );
      }
    },
    // Claude's counts go with the client's own body (count-tokens-service.ts); a Converse
    // model's with the prompt parts of its Converse body.
    countTokens: (upstreamModel, dialect, body) =>
      dialect === 'bedrock-converse'
        ? {
            path: bedrockCountTokensPath(upstreamModel),
            body: bedrockConverseCountTokensBody(body),
            read: readBedrockInputTokens,
          }
        : undefined,
    readEventBatches: readBedrockEventBatches,
  };
}
