import type { UpstreamKey } from '../catalog/upstream-key.ts';
import type { GenerationCall, TranslationIssue } from '../canonical/generation-call.ts';
import type { UpstreamEvent } from './provider-codec.ts';

/**
 * The wire format of an upstream's bodies and streams. A provider kind says how a service is
 * reached (its paths, credentials, stream framing); the dialect says what its bodies look like:
 * Claude on Amazon Bedrock or Google Vertex AI speaks `anthropic` through another kind.
 */
export type UpstreamDialect =
  'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'bedrock-converse';

/** One call about to be sent, as a transport may still sign or authorize it. */
export interface TransportRequest {
  /** Path and query relative to the provider's base URL, e.g. `/model/x/invoke`. */
  path: string;
  /** Holds content-type, accept and the provider's configured headers already. */
  headers: Record<string, string>;
  /** The exact bytes that will be sent (what a signature covers). */
  body: string | Buffer;
}

/** A counting call a transport builds (`ProviderTransport.countTokens`). */
export interface UpstreamTokenCount {
  path: string;
  body: Record<string, unknown>;
  read(answer: unknown): number | undefined;
}

type ClientHeaders = Record<string, string | string[] | undefined>;

/** How a provider kind reaches its service (docs/configuration.md lists the kinds). */
export interface ProviderTransport {
  /**
   * The dialect a deployment of this kind speaks to a client whose own dialect is `preferred`
   * (speaking it lets the gateway relay the client's body and the upstream's events unchanged);
   * a kind that speaks one dialect per model ignores it.
   */
  dialect(upstreamModel: string, preferred: UpstreamDialect): UpstreamDialect;
  /** Path and query of a generation call. */
  generationPath(upstreamModel: string, dialect: UpstreamDialect, stream: boolean): string;
  /**
   * The dialect's body as this service takes it (e.g. the model in the path rather than the
   * body). Absent: the body goes as it is. Returns a copy-on-write edit, never mutates `body`.
   */
  adaptBody?(
    body: Record<string, unknown>,
    input: { dialect: UpstreamDialect; stream: boolean; clientHeaders: ClientHeaders },
  ): Record<string, unknown>;
  /**
   * Puts the credential on `request.headers`: at once for a static key, through a promise when
   * it signs the request or needs an access token. `key.secret` is the provider's `apiKeyEnv`
   * value, when it has one.
   */
  authorize(request: TransportRequest, key: UpstreamKey): void | Promise<void>;
  /**
   * Told when the upstream refused what `authorize` put on a call (401/403): a transport that
   * holds a token for the key drops it, so the next call gets a fresh one.
   */
  credentialRefused?(key: UpstreamKey): void;
  /**
   * The service's own prompt count for a body of `dialect` (Gemini's `:countTokens`), when it has
   * one that is not the dialect's own API's: where to send what, and how to read the count.
   */
  countTokens?(
    upstreamModel: string,
    dialect: UpstreamDialect,
    body: Record<string, unknown>,
  ): UpstreamTokenCount | undefined;
  /**
   * What this service refuses of a call its dialect can carry (Claude on Vertex AI: an image by
   * URL), as issues at canonical paths; none, or absent: the dialect's codec decides alone. Asked
   * of relayed calls too, so the request can go to a deployment that carries it or be refused
   * with 400 naming the client's field, rather than sent to fail.
   */
  refuseCall?(call: GenerationCall, dialect: UpstreamDialect): TranslationIssue[];
  /** The streamed answer as upstream events; server-sent events when absent. */
  readEventBatches?(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent[]>;
}

/**
 * What `authorize` throws when it cannot get a credential (no AWS credentials in the
 * environment, a token endpoint that refused or did not answer): the attempt fails like an
 * unreachable upstream, so the router tries another target. The message never holds a secret.
 */
export class UpstreamCredentialError extends Error {
  override name = 'UpstreamCredentialError';
}
