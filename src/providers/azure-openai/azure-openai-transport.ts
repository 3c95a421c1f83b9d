import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import type { TextProviderConfig } from '../../config/config-schema.ts';
import type { ProviderTransport, TransportRequest } from '../provider-transport.ts';
import { setBearer } from '../shared/static-key-transport.ts';

/**
 * Azure OpenAI (docs/configuration.md): chat completions for a chat client, the responses API for
 * the others (it carries reasoning across turns, which chat completions cannot). The deployment
 * name is the deployment's `upstreamModel`. Without `apiVersion` the `/openai/v1/` routes, which
 * take the deployment as the body's `model`; with it, the deployment routes
 * (`/openai/deployments/{name}/chat/completions?api-version=…`, and `/openai/responses`, which
 * takes it in the body too).
 */
export function azureOpenAITransport(provider: TextProviderConfig): ProviderTransport {
  const version =
    provider.apiVersion === undefined
      ? undefined
      : `api-version=${encodeURIComponent(provider.apiVersion)}`;
  const bearer = provider.authScheme === 'bearer';
  return {
    dialect: (_model, preferred) =>
      preferred === 'openai-chat' ? 'openai-chat' : 'openai-responses',
    generationPath(upstreamModel, dialect) {
      if (version === undefined)
        return dialect === 'openai-chat' ? '/openai/v1/chat/completions' : '/openai/v1/responses';
      return dialect === 'openai-chat'
        ? `/openai/deployments/${encodeURIComponent(upstreamModel)}/chat/completions?${version}`
        : `/openai/responses?${version}`;
    },
    authorize(request: TransportRequest, key: UpstreamKey): void {
      if (key.secret === undefined) return;
      if (bearer) setBearer(request.headers, key.secret);
      else request.headers['api-key'] = key.secret;
    },
  };
}
