import type { CodecResult, GenerationCall } from '../canonical/generation-call.ts';
import type { GenerationResult } from '../canonical/generation-result.ts';
import type { StreamPart } from '../canonical/stream-part.ts';

import type { UpstreamDialect } from './provider-transport.ts';

/** What the catalog says about the deployment a call goes to. */
export interface ProviderRequestOptions {
  /** The model name the upstream knows. */
  upstreamModel: string;
  /** docs/api.md: `auto` lets the gateway add a five-minute cache marker where supported. */
  promptCache: 'auto' | 'off';
  /** Used when the call names no output limit and the upstream requires one (Anthropic). */
  defaultMaxOutputTokens: number;
}

/** One upstream SSE event as parsed by eventsource-parser. */
export interface UpstreamEvent {
  event?: string;
  data: string;
}

export interface ProviderStreamDecoder {
  /** Canonical parts for one upstream event; throws nothing, reports failures as an error part. */
  push(event: UpstreamEvent): StreamPart[];
  /** Called when the upstream stream closed; emits what is still open (or an error part). */
  end(): StreamPart[];
}

/** An outbound codec: the canonical model to and from an upstream dialect. Pure. */
export interface ProviderCodec {
  dialect: UpstreamDialect;
  /** The generation path of the dialect's own API, relative to its base URL, e.g. `/v1/messages`. */
  path: string;
  /**
   * Encodes the call for the upstream. Issues name, by the canonical field (`topK`,
   * `messages[3].content[1]`), what this upstream cannot carry.
   */
  encodeRequest(
    call: GenerationCall,
    options: ProviderRequestOptions,
  ): CodecResult<Record<string, unknown>>;
  /**
   * Decodes a non-streamed upstream body (lenient: unknown fields are ignored, not fatal). The
   * call is there for context, e.g. to map shortened tool names back to the client's names.
   */
  decodeResult(body: unknown, call: GenerationCall): GenerationResult;
  createStreamDecoder(call: GenerationCall): ProviderStreamDecoder;
}
