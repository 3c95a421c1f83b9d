import type { ProviderRequestOptions } from '../provider-codec.ts';
import { isRecord } from './parse-openai-chat-json.ts';
import { copyWith } from '../../shared/copy-with.ts';

export interface ChatPassthroughRequest {
  /** The client's body with its unknown fields intact; only the gateway's own changes applied. */
  body: Record<string, unknown>;
  /**
   * Whether the client itself asked for the stream usage chunk. When false on a stream, the
   * gateway added `include_usage` for billing and the relay drops the `choices: []` usage chunk
   * (see `createChatUsageTap`) so the client sees what it asked for.
   */
  clientAskedForUsage: boolean;
}

/**
 * The same-dialect fast path (docs/architecture.md): chat client → chat upstream. The model id
 * becomes the upstream's, and a stream always asks for usage (docs/architecture.md). Tool names are
 * left as the client sent them: the upstream judges them as if called directly.
 */
export function prepareChatPassthrough(
  body: Record<string, unknown>,
  options: ProviderRequestOptions,
): ChatPassthroughRequest {
  // copyWith, not a spread: stream_options is added to the copy below (copy-with.ts).
  const prepared: Record<string, unknown> = copyWith(body, { model: options.upstreamModel });
  const streamOptions = isRecord(body['stream_options']) ? body['stream_options'] : undefined;
  const clientAskedForUsage = streamOptions?.['include_usage'] === true;
  if (body['stream'] === true) {
    prepared['stream_options'] = { ...streamOptions, include_usage: true };
  }
  return { body: prepared, clientAskedForUsage };
}
