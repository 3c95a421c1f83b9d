import type { ProviderRequestOptions } from '../provider-codec.ts';
import { addAnthropicCacheMarkers } from './add-anthropic-cache-markers.ts';

/**
 * The same-dialect fast path (docs/architecture.md): the client's message-style body goes to an
 * Anthropic upstream with its unknown fields intact; the gateway changes only the model id and, per
 * the prompt-cache header, adds its cache marker (docs/api.md). The input body is not modified.
 */
export function prepareAnthropicPassthrough(
  body: Record<string, unknown>,
  options: Pick<ProviderRequestOptions, 'upstreamModel' | 'promptCache'>,
): Record<string, unknown> {
  return addAnthropicCacheMarkers({ ...body, model: options.upstreamModel }, options.promptCache);
}
