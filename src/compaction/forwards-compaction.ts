import type { ProviderConfig } from '../config/config-schema.ts';

/**
 * Whether compaction for a deployment on this provider goes to the upstream's own
 * `/v1/responses/compact` (docs/decisions/0013). Only the responses dialect has the endpoint, and
 * not every server of that dialect implements it: the operator says so with `forwardCompaction`,
 * which defaults to on for OpenAI's own API only.
 */
export function forwardsCompaction(provider: ProviderConfig): boolean {
  if (provider.kind !== 'openai-responses') return false;
  if (provider.forwardCompaction !== undefined) return provider.forwardCompaction;
  try {
    return new URL(provider.baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
