import type { UpstreamKey } from '../../catalog/upstream-key.ts';
import type {
  ProviderTransport,
  TransportRequest,
  UpstreamDialect,
} from '../provider-transport.ts';

/**
 * A service at one fixed path per dialect with a static key in one header: the three direct
 * APIs (Anthropic, OpenAI chat completions and responses) and every server compatible with them.
 */
export function staticKeyTransport(
  dialect: UpstreamDialect,
  path: string,
  setKey: (headers: Record<string, string>, secret: string) => void,
): ProviderTransport {
  return {
    dialect: () => dialect,
    generationPath: () => path,
    authorize(request: TransportRequest, key: UpstreamKey): void {
      if (key.secret !== undefined) setKey(request.headers, key.secret);
    },
  };
}

export function setBearer(headers: Record<string, string>, secret: string): void {
  headers.authorization = `Bearer ${secret}`;
}
