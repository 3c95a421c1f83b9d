import { ApiError } from '../../canonical/generation-error.ts';
import type { ImageProviderConfig } from '../../config/images-config-schema.ts';
import {
  mapUpstreamStatus,
  upstreamOrigin,
  upstreamUrlPath,
} from '../../providers/shared/map-upstream-failure.ts';
import {
  isTimeout,
  isTransportFailure,
  type UpstreamPools,
  type UpstreamTarget,
} from '../../providers/shared/upstream-pool.ts';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import type { FormData } from 'undici';

import type { ImageUpstreamCall, ImageUpstreamForm } from './image-provider-adapter.ts';

/** A failed upstream step; `retryable`: the same step may succeed later or on another deployment. */
export class ImageUpstreamFailure extends Error {
  readonly error: ApiError;
  readonly retryable: boolean;
  constructor(error: ApiError, retryable: boolean) {
    super(error.message);
    this.error = error;
    this.retryable = retryable;
  }
}

/** JSON answers of image upstreams are small unless they carry base64 images. */
const jsonAnswerLimit = 64 * 1024 * 1024;

/**
 * Sends image upstream calls through the shared undici pools (one pool per origin; never
 * `fetch`). Absolute URLs an upstream hands out (polling, samples) are followed only to the
 * provider's own origin and its configured `fetchOrigins`, so an upstream answer cannot make the
 * gateway call anywhere else.
 */
export class ImageUpstreamClient {
  readonly #pools: UpstreamPools;
  readonly #now: () => number;
  readonly #apiKey: (provider: ImageProviderConfig) => string | undefined;
  readonly #targets = new Map<string, UpstreamTarget>();

  /** `apiKey`: the provider's key, to name its unset variable when a call is refused. */
  constructor(
    pools: UpstreamPools,
    now: () => number,
    apiKey: (provider: ImageProviderConfig) => string | undefined,
  ) {
    this.#pools = pools;
    this.#now = now;
    this.#apiKey = apiKey;
  }

  async json(
    provider: ImageProviderConfig,
    call: ImageUpstreamCall,
    signal: AbortSignal,
  ): Promise<unknown> {
    const body = await this.bytes(provider, call, signal, jsonAnswerLimit);
    try {
      return parseUntrustedJson(body.toString('utf8'));
    } catch {
      throw failure(provider, 'is not JSON');
    }
  }

  async bytes(
    provider: ImageProviderConfig,
    call: ImageUpstreamCall,
    signal: AbortSignal,
    limit: number,
  ): Promise<Buffer> {
    const { target, path } = this.#route(provider, call);
    // One link per call, removed after it: a job's signal outlives hundreds of polls.
    const local = new AbortHandle();
    const abort = () => local.abort();
    if (signal.aborted) local.abort();
    else signal.addEventListener('abort', abort, { once: true });
    try {
      return await this.#send(provider, target, path, call, local, limit);
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  async #send(
    provider: ImageProviderConfig,
    target: UpstreamTarget,
    path: string,
    call: ImageUpstreamCall,
    signal: AbortHandle,
    limit: number,
  ): Promise<Buffer> {
    // The operator's log names the provider and the path called (docs/decisions/0111); a URL the
    // upstream handed out may be signed in its query string, which stays out of the log.
    const origin = upstreamOrigin(
      provider.id,
      { baseUrl: target.baseUrl, apiKeyEnv: provider.apiKeyEnv },
      path.split('?')[0] ?? '',
      this.#apiKey(provider),
    );
    const unreachable = (why: string, error: unknown) =>
      failure(provider, why, {
        provider: provider.id,
        upstreamPath: upstreamUrlPath(origin.baseUrl, origin.path),
        cause: (error as Error).message,
      });
    let response;
    try {
      const body = call.form === undefined ? call.body : await toFormData(call.form);
      response = await this.#pools.send(target, {
        method: call.method,
        path,
        headers: call.headers,
        ...(body === undefined ? {} : { body }),
        signal,
      });
    } catch (error) {
      if (!isTransportFailure(error)) throw error;
      throw unreachable(
        isTimeout(error) ? 'did not answer in time' : 'could not be reached',
        error,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          response.body.destroy();
          throw failure(provider, 'is too large');
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof ImageUpstreamFailure || !isTransportFailure(error)) throw error;
      throw unreachable('broke off', error);
    }
    const body = Buffer.concat(chunks);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const mapped = mapUpstreamStatus(
        response.statusCode,
        response.headers,
        body.toString('utf8'),
        this.#now(),
        origin,
      );
      throw new ImageUpstreamFailure(mapped.error, mapped.retryable);
    }
    return body;
  }

  #route(
    provider: ImageProviderConfig,
    call: ImageUpstreamCall,
  ): { target: UpstreamTarget; path: string } {
    if (call.url === undefined) return { target: provider, path: call.path ?? '/' };
    let url: URL;
    try {
      url = new URL(call.url);
    } catch {
      throw failure(provider, 'gave a URL that does not parse');
    }
    const allowed = [new URL(provider.baseUrl).origin, ...provider.fetchOrigins];
    if (!allowed.some((origin) => origin.replace(/\/$/, '') === url.origin)) {
      throw new ImageUpstreamFailure(
        new ApiError(
          'upstream_error',
          `The image provider ${provider.id} pointed at ${url.origin}, which is not one of its fetchOrigins.`,
        ),
        false,
      );
    }
    const key = `${provider.id} ${url.origin}`;
    let target = this.#targets.get(key);
    if (target === undefined) {
      target = { ...provider, baseUrl: url.origin };
      this.#targets.set(key, target);
    }
    return { target, path: `${url.pathname}${url.search}` };
  }
}

/** undici writes the multipart body and its boundary; its entry is loaded on first use only. */
async function toFormData(form: ImageUpstreamForm): Promise<FormData> {
  const { FormData } = await import('undici');
  const body = new FormData();
  for (const field of form.fields) body.append(field.name, field.value);
  for (const file of form.files) {
    body.append(file.name, new Blob([file.bytes], { type: file.mediaType }), file.filename);
  }
  return body;
}

function failure(
  provider: ImageProviderConfig,
  why: string,
  diagnosis?: Record<string, string>,
): ImageUpstreamFailure {
  return new ImageUpstreamFailure(
    new ApiError('upstream_error', `The image provider ${provider.id} ${why}.`, {
      ...(diagnosis === undefined ? {} : { diagnosis }),
    }),
    true,
  );
}
