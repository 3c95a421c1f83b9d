import type { ProviderRequestOptions } from '../provider-codec.ts';

/**
 * The same-dialect fast path (docs/architecture.md): the client's responses body goes to an OpenAI
 * responses upstream with its unknown fields intact; the gateway changes only the model id.
 * OpenAI caches prompt prefixes by itself, so there is no cache marker to add (docs/api.md). The
 * input body is not modified.
 */
export function prepareResponsesPassthrough(
  body: Record<string, unknown>,
  options: Pick<ProviderRequestOptions, 'upstreamModel'>,
): Record<string, unknown> {
  return { ...body, model: options.upstreamModel };
}
