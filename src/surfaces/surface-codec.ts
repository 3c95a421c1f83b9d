import type { CallOrigins } from '../canonical/call-origins.ts';
import type { CodecResult, GenerationCall } from '../canonical/generation-call.ts';
import type { GenerationResult } from '../canonical/generation-result.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { ErrorShape } from '../canonical/generation-error.ts';

export type SurfaceName = 'messages' | 'responses' | 'chat';

/**
 * A decoded request. `origins` locates the canonical call's pieces in the client's body, so a
 * provider's issues name the client's own fields; the decoder's own issues already
 * do.
 */
export interface DecodedRequest extends CodecResult<GenerationCall> {
  origins: CallOrigins;
}

/** What a surface encoder needs to know about the response it renders. */
export interface SurfaceEncodeContext {
  /** The id the client sees (`msg_…`, `resp_…`, `chatcmpl-…`), minted by the gateway. */
  responseId: string;
  /** The public model id the client asked for. */
  model: string;
  /** Epoch seconds. */
  createdAt: number;
  /**
   * Where the stream's numbering continues (responses `sequence_number`): a relayed stream that
   * fails after N upstream events ends with an error event numbered N, not a second 0, and
   * without opening the response a second time.
   */
  firstSequenceNumber?: number;
}

/**
 * One server-sent event. `event` is the SSE event name (absent for chat, which has none);
 * `data` is serialised with JSON.stringify, except the literal string `[DONE]` which is sent raw.
 * The same objects become WebSocket text frames for the responses surface (docs/decisions/0012).
 */
export interface SurfaceEvent {
  event?: string;
  data: unknown;
  /**
   * `data` already written as JSON.stringify writes it, by an encoder that writes its frequent
   * events from a template (shared/json-string-template.ts); the SSE frame takes it as it is.
   */
  json?: string;
}

export interface SurfaceStreamEncoder {
  /** The events one canonical part renders to; often none (e.g. a text-end in chat). */
  encode(part: StreamPart): SurfaceEvent[];
  /** Events that close the stream after the last part (chat's `[DONE]`), if any. */
  end(): SurfaceEvent[];
}

/** An inbound codec: a client dialect to and from the canonical model. Pure: no I/O, no clock. */
export interface SurfaceCodec {
  name: SurfaceName;
  errorShape: ErrorShape;
  /**
   * The stream's first event carries the prompt size (message_start, docs/clients.md): a translated
   * stream starts with the best size known then, never a 0 (decisions/0003).
   */
  inputUsageAtStart?: boolean;
  /**
   * Decodes a body already validated against the surface's request schema. Issues name the
   * fields (JSON paths into the body) that the canonical model cannot carry.
   */
  decodeRequest(body: Record<string, unknown>): DecodedRequest;
  /** `request` as for `createStreamEncoder` (the messages surface reads `thinking.display`). */
  encodeResult(
    result: GenerationResult,
    context: SurfaceEncodeContext,
    request?: Record<string, unknown>,
  ): unknown;
  /**
   * `request` is the client's validated body, for the stream options that live in it (chat's
   * `stream_options.include_usage`, messages `thinking.display`).
   */
  createStreamEncoder(
    context: SurfaceEncodeContext,
    request?: Record<string, unknown>,
  ): SurfaceStreamEncoder;
}
