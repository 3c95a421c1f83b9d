import type { ServerResponse } from 'node:http';

import type { FakeDialectRenderer } from './fake-dialect-renderer.ts';
import type { FakeErrorReply, RecordedRequest } from './fake-reply.ts';

/**
 * How a cloud's wire format reaches one of the fake's dialects: its own paths (the model in the
 * URL), its own credential (an access token rather than a key) and its own error shape. The fake
 * asks every wire it was given before its own routes.
 */
export interface FakeWire {
  /** Answers a route the wire owns outright (a token endpoint); true when it did. */
  answerOwnRoute?(request: RecordedRequest, response: ServerResponse): boolean;
  /** How the wire routes a request, or undefined when the path is not one of its routes. */
  route(request: RecordedRequest): FakeWireRoute | undefined;
}

export interface FakeWireRoute {
  /** The dialect's renderer, with the cloud's error shape. */
  renderer: FakeDialectRenderer;
  kind: 'generation' | 'token-count';
  /** Answer as a stream (the method in the path says so, not the body). */
  stream: boolean;
  /** Who the credential names (becomes `RecordedRequest.key`), undefined when it names nobody. */
  key: string | undefined;
  /** The body as the dialect's renderer reads it, e.g. with the model taken from the path. */
  body: Record<string, unknown>;
  /** Refused before anything else: no valid credential, or a body the cloud would not take. */
  refusal?: FakeErrorReply;
  /** A token-counting route's answer; absent: the Messages API's `{input_tokens}`. */
  renderTokenCount?(inputTokens: number): unknown;
}
