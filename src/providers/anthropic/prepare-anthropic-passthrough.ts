import type { ProviderRequestOptions } from '../provider-codec.ts';
import { addAnthropicCacheMarkers } from './add-anthropic-cache-markers.ts';

/**
 * The same-dialect fast path (DESIGN.md §1): the client's message-style body goes to an Anthropic
 * upstream with its unknown fields intact; the gateway changes only the model id and, per the
 * prompt-cache header, adds its cache marker (spec §5.3). The input body is not modified.
 */
export function prepareAnthropicPassthrough(
  body: Record<string, unknown>,
  options: Pick<ProviderRequestOptions, 'upstreamModel' | 'promptCache'>,
): Record<string, unknown> {
  return addAnthropicCacheMarkers({ ...body, model: options.upstreamModel }, options.promptCache);
}
