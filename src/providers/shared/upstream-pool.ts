import type { AbortHandle } from '../../shared/abort-handle.ts';
import { Pool, errors as undiciErrors } from 'undici';
import type { Dispatcher } from 'undici';

export interface UpstreamTarget {
  baseUrl: string;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

export interface UpstreamRequest {
  /** Path relative to the base URL, e.g. `/v1/messages`. */
  path: string;
  headers: Record<string, string>;
  /** A string is sent as UTF-8; the generation path encodes its bodies itself (utf8-bytes.ts). */
  body: string | Buffer;
  signal: AbortSignal | AbortHandle;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * Keep-alive pools per upstream origin over undici (not `fetch`, measured ~5× the CPU here).
 * Timeouts: connect, first byte (`headersTimeout`) and idle between body chunks (`bodyTimeout`).
 */
export class UpstreamPools {
  readonly #pools = new Map<string, { pool: Pool; basePath: string }>();

  #poolFor(target: UpstreamTarget): { pool: Pool; basePath: string } {
    const existing = this.#pools.get(target.baseUrl);
    if (existing !== undefined) return existing;
    const url = new URL(target.baseUrl);
    const entry = {
      pool: new Pool(url.origin, {
        connections: target.maxConnections,
        connectTimeout: target.connectTimeoutMs,
        headersTimeout: target.firstByteTimeoutMs,
        bodyTimeout: target.idleTimeoutMs,
        keepAliveTimeout: 30_000,
        pipelining: 1,
      }),
      basePath: url.pathname.replace(/\/+$/, ''),
    };
    this.#pools.set(target.baseUrl, entry);
    return entry;
  }

  async send(target: UpstreamTarget, request: UpstreamRequest): Promise<UpstreamResponse> {
    const { pool, basePath } = this.#poolFor(target);
    return pool.request({
      method: 'POST',
      path: `${basePath}${request.path}`,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map(({ pool }) => pool.close()));
    this.#pools.clear();
  }
}

/** True for failures that mean "could not reach or read the upstream" (spec §7: 502). */
export function isTransportFailure(error: unknown): boolean {
  return (
    error instanceof undiciErrors.UndiciError ||
    (error instanceof Error &&
      'code' in error &&
      typeof (error as { code: unknown }).code === 'string' &&
      /^(ECONN|EPIPE|ENOTFOUND|EAI_|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR)/.test(
        (error as { code: string }).code,
      ))
  );
}

export function isTimeout(error: unknown): boolean {
  return (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  );
}
