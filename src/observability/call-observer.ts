import type { Usage } from '../canonical/usage.ts';
import type { FailureClass } from '../routing/target-health.ts';

/** One upstream call a request made (docs/routing.md): where it went, how long, how it ended. */
export interface ObservedAttempt {
  /** `provider/upstream-model#key-id`: never the key. */
  target: string;
  /** The provider's id in the configuration. */
  provider: string;
  /** Its wire dialect (`anthropic`, `openai-chat`, `openai-responses`). */
  providerKind: string;
  /** `provider/upstream-model`. */
  deployment: string;
  keyId: string;
  /** Epoch ms: the send, and the answer's headers (or the failure). */
  startedAt: number;
  endedAt: number;
  /** The upstream's status, when it answered. */
  status?: number;
  /** Undefined when the attempt answered below 400. */
  failure?: FailureClass;
}

/**
 * What one text generation came to, told once when its billing ends (docs/operations.md): the
 * single record metrics, traces and the completion log line are built from.
 */
export interface ObservedCall {
  requestId: string;
  /** The client dialect, or what the call is metered as (`evaluation`). */
  surface: string;
  stream: boolean;
  /** The model the client asked for. */
  requestedModel: string;
  /** The model that answered (a fallback) or was to answer. */
  model: string;
  accountId: string;
  apiKeyId: string;
  status: number;
  outcome: string;
  usage: Usage | undefined;
  costMicroCredits: number;
  /** Epoch ms: the request reached the pipeline, and its billing ended. */
  startedAt: number;
  endedAt: number;
  /** Epoch ms the first byte of the answer left for the client, when one did. */
  firstByteAt: number | undefined;
  /** Every upstream call, in order; the answering one last. */
  attempts: readonly ObservedAttempt[];
  /** The output limit the client asked for, when it named one. */
  maxOutputTokens?: number | undefined;
  /** The client's W3C `traceparent` header, as sent, so a trace can continue the client's. */
  traceparent?: string | undefined;
}

/** The observability port: told of every finished call, never on the request's critical path. */
export interface CallObserver {
  observe(call: ObservedCall): void;
}
