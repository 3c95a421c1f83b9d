import type { FakeIdSource } from './fake-ids.ts';
import type { FakeDialect, RecordedRequest } from './fake-reply.ts';
import type { ResolvedReply } from './resolve-fake-reply.ts';
import type { SseFrame } from './sse-frame.ts';

export interface RenderContext {
  request: RecordedRequest;
  /** The request body as an object (empty when it was not one). */
  body: Record<string, unknown>;
  ids: FakeIdSource;
  /** Unix seconds, fixed for the whole reply. */
  createdAt: number;
}

export interface ErrorDetails {
  message?: string | undefined;
  type?: string | undefined;
}

/** What one upstream dialect contributes: its success, stream and error shapes. */
export interface FakeDialectRenderer {
  dialect: FakeDialect;
  /** The header carrying the upstream's request id (`request-id` / `x-request-id`). */
  requestIdHeader: string;
  renderJson(reply: ResolvedReply, context: RenderContext): unknown;
  /**
   * The complete event sequence, terminator included; with `reply.midStreamError` the events
   * after `afterEvents` are replaced by the dialect's error event.
   */
  /** Absent for an endpoint without a streaming form: `stream: true` gets the JSON answer. */
  renderStream?(reply: ResolvedReply, context: RenderContext): SseFrame[];
  renderErrorBody(status: number, details: ErrorDetails): unknown;
}

/**
 * A route outside the fixed tables (a path that names the model, a key header of its own), as a
 * provider's wire file matches it (e.g. wire-gemini.ts).
 */
export interface WireRoute {
  renderer: FakeDialectRenderer;
  /** Whether the route streams; the body's `stream` flag decides when absent. */
  stream?: boolean;
  /** A token-counting route: answered with `renderTokenCount`. */
  renderTokenCount?(inputTokens: number): unknown;
  /** The model the path names, for bodies that carry none. */
  model?: string;
  /** The upstream key the request presents, read as this upstream reads it. */
  presentedKey(headers: Record<string, string>): string | undefined;
  /** The upstream's refusal of a body it would not answer (status ≥ 400), if any. */
  refuse?(body: Record<string, unknown>): { status: number; errorMessage: string } | undefined;
}
