import { ApiError } from '../../canonical/generation-error.ts';
import type { ImageProviderConfig } from '../../config/images-config-schema.ts';
import { mapUpstreamStatus } from '../../providers/shared/map-upstream-failure.ts';
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
  readonly #targets = new Map<string, UpstreamTarget>();

  constructor(pools: UpstreamPools, now: () => number) {
    this.#pools = pools;
    this.#now = now;
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
      throw failure(provider, isTimeout(error) ? 'did not answer in time' : 'could not be reached');
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
      throw failure(provider, 'broke off');
    }
    const body = Buffer.concat(chunks);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const mapped = mapUpstreamStatus(
        response.statusCode,
        response.headers,
        body.toString('utf8'),
        this.#now(),
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

function failure(provider: ImageProviderConfig, why: string): ImageUpstreamFailure {
  return new ImageUpstreamFailure(
    new ApiError('upstream_error', `The image provider ${provider.id} ${why}.`),
    true,
  );
}
