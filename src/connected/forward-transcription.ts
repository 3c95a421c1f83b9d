import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Pool } from '../providers/shared/undici-pool.ts';

/** The connected-provider transcription upstream (config `connected.transcribe`). */
export interface TranscribeTarget {
  url: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
}

export interface TranscriptionRequest {
  /** The client's body, streamed as received; undefined when it sent none. */
  body: Readable | undefined;
  headers: IncomingHttpHeaders;
  /** The client's query string without `?`, appended to the configured URL's. */
  query: string;
  signal: AbortSignal;
}

/**
 * Client headers that travel upstream. docs/decisions/0010: the body keeps its original content
 * type, so a multipart boundary arrives intact; the client's credential never leaves the gateway.
 */
const forwardedRequestHeaders = [
  'content-type',
  'content-length',
  'content-encoding',
  'accept',
  'idempotency-key',
] as const;

/** Upstream answer headers relayed with the body. */
export const relayedResponseHeaders = [
  'content-type',
  'content-length',
  'content-encoding',
  'retry-after',
] as const;

/**
 * Forwards a /transcribe body to the configured upstream over a keep-alive undici pool (never
 * `fetch`, see src/providers/shared/upstream-pool.ts). The body is streamed, never buffered.
 */
export class TranscriptionForwarder {
  readonly #target: TranscribeTarget;
  readonly #url: URL;
  readonly #pool: Pool;

  constructor(target: TranscribeTarget) {
    this.#target = target;
    this.#url = new URL(target.url);
    this.#pool = new Pool(this.#url.origin, {
      connectTimeout: target.connectTimeoutMs,
      headersTimeout: target.firstByteTimeoutMs,
      bodyTimeout: target.idleTimeoutMs,
      keepAliveTimeout: 30_000,
    });
  }

  async forward(request: TranscriptionRequest): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { ...this.#target.headers };
    for (const name of forwardedRequestHeaders) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (this.#target.apiKey !== undefined) headers.authorization = `Bearer ${this.#target.apiKey}`;
    const separator = this.#url.search === '' ? '?' : '&';
    const path = `${this.#url.pathname}${this.#url.search}${request.query === '' ? '' : `${separator}${request.query}`}`;
    return this.#pool.request({
      method: 'POST',
      path,
      headers,
      body: request.body ?? '',
      signal: request.signal,
    });
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
