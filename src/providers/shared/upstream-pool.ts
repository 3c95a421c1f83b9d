import { AbortHandle } from '../../shared/abort-handle.ts';
import { Pool, errors as undiciErrors } from './undici-pool.ts';
import type { FormData } from 'undici';
import { UpstreamAnswerHandler, type UpstreamResponse } from './upstream-answer.ts';

export type { UpstreamResponse } from './upstream-answer.ts';

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
  /** POST unless told; a GET sends no body (search providers that read a query string). */
  method?: 'GET' | 'POST';
  /**
   * A string is sent as UTF-8; the generation path encodes its bodies itself (utf8-bytes.ts).
   * A form is streamed as multipart/form-data, its file parts read from disk as they are sent.
   */
  body?: string | Buffer | FormData;
  signal: AbortSignal | AbortHandle;
}

/**
 * Keep-alive pools over undici (not `fetch`, measured ~5× the CPU here; answers read through its
 * dispatch interface, not `request()`'s stream: upstream-answer.ts), one per provider: each
 * provider's timeouts and connection limit apply even when two providers share a base URL
 * (the shipped example has `openai` and `openai-chat` on one URL). A target is a provider's
 * configuration object, which lives as long as the configuration, so its identity is the key. A
 * configuration reload hands its pool on to the provider's new object when its connection settings
 * are the same (`carryOver`), so a reload does not drop warm connections.
 *
 * Timeouts: connect (`connectTimeout`), idle between body chunks (`bodyTimeout`) and first byte.
 * undici's own timers for delays over a second tick in half-seconds and fire up to about a second
 * late (undici lib/util/timers.js: 1.5 s fired at ~2.0 s), so the first byte has a timer of its own
 * here, measured from the send (waiting for a connection included) and accurate to the event loop;
 * undici's `headersTimeout` stays as a backstop, set past it.
 */
export class UpstreamPools {
  readonly #pools = new Map<UpstreamTarget, { pool: Pool; basePath: string }>();
  /** Pools a reload retired, closing once the requests they still carry have ended. */
  readonly #closing = new Set<Promise<void>>();

  #poolFor(target: UpstreamTarget): { pool: Pool; basePath: string } {
    const existing = this.#pools.get(target);
    if (existing !== undefined) return existing;
    const url = new URL(target.baseUrl);
    const entry = {
      pool: new Pool(url.origin, {
        connections: target.maxConnections,
        connectTimeout: target.connectTimeoutMs,
        headersTimeout: target.firstByteTimeoutMs + FIRST_BYTE_BACKSTOP_MS,
        bodyTimeout: target.idleTimeoutMs,
        keepAliveTimeout: 30_000,
        pipelining: 1,
      }),
      basePath: basePathOf(target),
    };
    this.#pools.set(target, entry);
    return entry;
  }

  async send(target: UpstreamTarget, request: UpstreamRequest): Promise<UpstreamResponse> {
    const { pool, basePath } = this.#poolFor(target);
    // Aborting the request is the only way to stop undici waiting. The caller's signal aborts it
    // too, through this handle, for as long as the answer's body is read (a client that leaves
    // mid-stream stops the upstream), so its listener stays after a success.
    const local = new AbortHandle();
    const abort = (): void => local.abort();
    if (request.signal.aborted) local.abort();
    else request.signal.addEventListener('abort', abort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      local.abort();
    }, target.firstByteTimeoutMs);
    try {
      return await new Promise<UpstreamResponse>((resolve, reject) => {
        pool.dispatch(
          {
            method: request.method ?? 'POST',
            path: `${basePath}${request.path}`,
            headers: request.headers,
            body: request.body ?? null,
          },
          new UpstreamAnswerHandler(local, resolve, reject),
        );
      });
    } catch (error) {
      request.signal.removeEventListener('abort', abort);
      if (timedOut && !request.signal.aborted) throw new undiciErrors.HeadersTimeoutError();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A configuration reload, from the providers `previous` names to those `next` names: a provider
   * whose connection settings did not change (`poolSignature`) keeps its pool under its new
   * object; the pools of the others are closed, which undici does once the requests they carry
   * have ended, so a stream in flight finishes. A call still holding a retired object later (a
   * fallback planned before the reload) gets a pool of its own again.
   */
  carryOver(
    previous: Readonly<Record<string, UpstreamTarget>>,
    next: Readonly<Record<string, UpstreamTarget>>,
  ): void {
    for (const [id, before] of Object.entries(previous)) {
      const entry = this.#pools.get(before);
      if (entry === undefined) continue;
      const after = Object.hasOwn(next, id) ? next[id] : undefined;
      if (after === before) continue;
      this.#pools.delete(before);
      if (after !== undefined && poolSignature(after) === poolSignature(before)) {
        if (!this.#pools.has(after)) {
          this.#pools.set(after, { pool: entry.pool, basePath: basePathOf(after) });
        }
        continue;
      }
      this.#retire(entry.pool);
    }
  }

  #retire(pool: Pool): void {
    for (const entry of this.#pools.values()) if (entry.pool === pool) return;
    const closing = pool.close().catch(() => undefined);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }

  /** How many pools are open (one per provider that sent something). */
  get size(): number {
    return new Set([...this.#pools.values()].map(({ pool }) => pool)).size;
  }

  async close(): Promise<void> {
    const pools = new Set([...this.#pools.values()].map(({ pool }) => pool));
    this.#pools.clear();
    await Promise.all([...pools].map((pool) => pool.close()));
    await Promise.all(this.#closing);
  }
}

/** What a pool is made of: a target with the same signature can use the pool as it is. */
function poolSignature(target: UpstreamTarget): string {
  return JSON.stringify([
    new URL(target.baseUrl).origin,
    target.connectTimeoutMs,
    target.firstByteTimeoutMs,
    target.idleTimeoutMs,
    target.maxConnections,
  ]);
}

function basePathOf(target: UpstreamTarget): string {
  return new URL(target.baseUrl).pathname.replace(/\/+$/, '');
}

/** undici's headers timer only guards against our own timer never firing; it fires after it. */
const FIRST_BYTE_BACKSTOP_MS = 2_000;

/** True for failures that mean "could not reach or read the upstream" (502, docs/api.md). */
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
