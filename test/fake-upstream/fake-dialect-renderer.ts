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
