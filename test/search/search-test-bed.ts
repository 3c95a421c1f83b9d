import type { LightMyRequestResponse } from 'fastify';

import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startFakeSearchUpstream, type FakeSearchUpstream } from './fake-search-upstream.ts';

export type SearchKind = 'tavily' | 'brave' | 'searxng';

export interface SearchBed {
  /** One fake per configured provider, in the configured order. */
  upstreams: FakeSearchUpstream[];
  gateway: TestGateway;
  close(): Promise<void>;
}

/** The key each provider of a bed reads from its environment variable. */
export function providerKey(index: number): string {
  return `search-key-${index}`;
}

/** A gateway whose search providers are fakes of the given kinds, tried in that order. */
export async function startSearchBed(
  kinds: SearchKind[],
  options: {
    pricePerRequest?: number;
    provider?: Record<string, unknown>;
    /** Replaces a provider's fake address, e.g. with one nothing listens on. */
    baseUrls?: Array<string | undefined>;
    /** More top-level configuration, e.g. `limits`. */
    config?: Record<string, unknown>;
  } = {},
): Promise<SearchBed> {
  const upstreams = await Promise.all(kinds.map(() => startFakeSearchUpstream()));
  const env: Record<string, string> = {};
  const providers = kinds.map((kind, index) => {
    env[`SEARCH_KEY_${index}`] = providerKey(index);
    return {
      id: `${kind}-${index}`,
      kind,
      baseUrl: options.baseUrls?.[index] ?? (upstreams[index] as FakeSearchUpstream).url,
      apiKeyEnv: `SEARCH_KEY_${index}`,
      ...options.provider,
    };
  });
  const gateway = await startTestGateway(
    { ...options.config, search: { providers, pricePerRequest: options.pricePerRequest ?? 0.005 } },
    { env },
  );
  return {
    upstreams,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    },
  };
}

export function postSearch(
  gateway: TestGateway,
  headers: Record<string, string>,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: 'POST',
    url: '/v1/search',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
